"""The environment profiles that ship with the harness (production, external test, local mock).

This folder is mapped into the package as `conformance.profiles_shipped` (pyproject.toml), so
a wheel, an sdist and an editable install find the same files through conformance/paths.py.
A team keeps its own profiles beside these, or in `./profiles/` of the directory it runs from:
a profile name resolves there first, then here (`conformance profiles` lists both).
"""
