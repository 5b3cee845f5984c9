"""The strict RFC 3986 URI-reference grammar (conformance/checks/uri_reference.py)."""

from __future__ import annotations

import pytest

from conformance.checks.uri_reference import is_uri_reference

# RFC 3986 1.1.2 (examples) and 5.4 (reference resolution examples), and problem types.
VALID = [
    "ftp://ftp.is.co.za/rfc/rfc1808.txt", "http://www.ietf.org/rfc/rfc2396.txt", "ldap://[2001:db8::7]/c=GB?objectClass?one",
    "mailto:John.Doe@example.com", "news:comp.infosystems.www.servers.unix", "tel:+1-816-555-1212",
    "telnet://192.0.2.16:80/", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
    "g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s", "", ".", "./",
    "..", "../", "../g", "../..", "../../", "../../g", "about:blank", "https://www.vng.nl/realisatie/api/validaties/integer",
    "/lvbag/individuelebevragingen/v2/adressen?postcode=1234AB&huisnummer=1", "http://[::1]:8080/x", "http://[v7.fe80]/",
    "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "/a%20b", "http://u:p@host:/p",
]
INVALID = [
    "params required", "GET /adressen/1", "http://host/a b", "/a%2", "/a%zz", ":no-scheme", "1http://x", "http://[::1",
    "http://[1:2:3:4:5:6:7:8:9]/", "a\nb", "/<script>", "http://host/ä", "a:b:c d", "%", "http://h/p#f#g", "{x}",
    "http://host:80a/",
]


@pytest.mark.parametrize("value", VALID)
def test_rfc3986_examples_are_uri_references(value: str) -> None:
    assert is_uri_reference(value)


@pytest.mark.parametrize("value", INVALID)
def test_strings_outside_the_grammar_are_not(value: str) -> None:
    assert not is_uri_reference(value)


def test_non_strings_are_not() -> None:
    assert not is_uri_reference(None) and not is_uri_reference(42)
