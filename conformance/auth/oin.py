"""The OINs (Organisatie-identificatienummers) of the test PKI, apart from the PKI itself so
that the command line can name them without loading `cryptography` (conformance.auth.pki)."""

from __future__ import annotations

import re

OIN_REGISTERED = "00000099000000001000"
OIN_UNREGISTERED = "00000099000000009000"  # registered at no customer
OIN_TWICE = "00000099000000002000"  # the mock registers it at two customers
OIN_PATTERN = re.compile(r"[0-9]{20}")
