"""Sphinx's settings for the manual. Build it with `scripts/docs OUT`, which adds the generated
pages (the check reference, the profile keys) and treats every warning as an error; Sphinx run
on docs/ alone would miss those pages."""

project = "registry-conformance"
html_title = "registry-conformance manual"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
# Not pages: the CI examples are included by ci.md; profile-keys.toml is the generator's input.
exclude_patterns = ["ci/*", "*.toml", "conf.py"]
# `[Limits](limits.md#a-service-that-stops-answering)`: the anchors GitHub also makes.
myst_heading_anchors = 4
html_theme = "furo"
html_copy_source = False
html_show_sourcelink = False
