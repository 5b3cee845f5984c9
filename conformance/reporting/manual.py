"""Where a check's page of the manual is, for the reports that name the check.

The manual is built by `scripts/docs OUT` (one page per check id, `checks/<id>.html`) and
published wherever a team publishes it; the harness cannot know that address. So a link is
the page's path in the built manual, prefixed with $CONFORMANCE_DOCS_URL when it is set (the
manual's address, e.g. `https://ci.vendor-x.example/conformance-manual`, or
`file:///srv/manual`). Unset, the link is the path relative to the manual's root.
"""

from __future__ import annotations

import os

DOCS_URL_ENV = "CONFORMANCE_DOCS_URL"
CHECKS_FOLDER = "checks"  # the check reference's folder in the manual (scripts/docs_pages.py writes it)


def check_page(check_id: str) -> str:
    """The check's page, relative to the manual's root."""
    return f"{CHECKS_FOLDER}/{check_id}.html"


def check_link(check_id: str) -> str:
    """The check's page as the reports link it: under $CONFORMANCE_DOCS_URL, else relative."""
    base = os.environ.get(DOCS_URL_ENV, "").strip().rstrip("/")
    return f"{base}/{check_page(check_id)}" if base else check_page(check_id)
