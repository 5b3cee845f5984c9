"""Where a secret would show in a file a reader or a report viewer decodes: the file's bytes
scanned as written, percent-decoded, with JSON string escapes undone, and with every base64
run decoded (Allure's single-file report embeds attachments so), in UTF-8 and in UTF-16."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from urllib.parse import unquote

from conformance.http.secret_forms import json_unescape

_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")


def _base64_decoded(data: bytes) -> list[bytes]:
    out = []
    for m in _BASE64_RUN.finditer(data):
        run = m.group(0).replace(b"-", b"+").replace(b"_", b"/")
        for shift in range(4):  # a secret may sit at any offset of a longer run
            part = run[shift:]
            part = part[: len(part) - len(part) % 4]
            try:
                out.append(base64.b64decode(part))
            except (binascii.Error, ValueError):
                continue
    return out


def views(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    forms = [text, unquote(text), json_unescape(text), json_unescape(unquote(text))]
    for encoding in ("utf-16-le", "utf-16-be"):
        forms.append(data.decode(encoding, "replace"))
    forms += [b.decode("utf-8", "replace") for b in _base64_decoded(data)]
    return forms


def leaks(data: bytes, secrets: list[str]) -> list[str]:
    """The secrets any view of the bytes shows."""
    seen = views(data)
    return [s for s in secrets if any(s in view for view in seen)]


def scan_files(root: Path, secrets: list[str]) -> dict[str, list[str]]:
    """file -> the secrets it shows, for every file below root."""
    found = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        hits = leaks(path.read_bytes(), secrets)
        if hits:
            found[str(path)] = hits
    return found
