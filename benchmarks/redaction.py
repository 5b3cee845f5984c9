"""Redaction of a capture of token exchanges: `conformance traffic`'s reading, learning,
masking and sorting (conformance/passive/traffic.py load_traffic) of a HAR of N client-
credentials token exchanges and as many uses of their tokens, each token echoed once by the
API it is sent to. Masking is linear in the capture whatever the number of tokens learned
(conformance/http/secret_forms.py); before issue 50 it searched for every token learned in
every text, and about 6,400 exchanges hit the 60 s reading budget.

    .venv/bin/python benchmarks/redaction.py [--exchanges 2000 40000]

Prints, per size: the HAR's size, the seconds load_traffic took and the microseconds per
exchange (target: at most 10 % more per exchange from the smallest size to the largest, and
the largest within the 60 s budget). Measured on 2 cores (2026-11-29): 2,000 exchanges
0.41 s, 40,000 (44.8 MiB, near the 48 MiB cap) 8.25 s, 206 us each at both sizes; before
issue 50's index, 6,400 exchanges took the whole 60 s."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.http.exchange import Exchange, Headers  # noqa: E402
from conformance.http.redaction import Redactor  # noqa: E402
from conformance.passive.har import write_har  # noqa: E402
from conformance.passive.traffic import load_traffic  # noqa: E402
from conformance.profiles import load_profile  # noqa: E402


def capture(pairs: int) -> list[Exchange]:
    out = []
    for i in range(pairs):
        token = f"eyJhbGciOiJSUzI1NiJ9.eyJqdGkiOiI{i:08d}In0.c2lnbmF0dXJl{i:08d}"
        out.append(Exchange(
            method="POST", url="http://127.0.0.1:9/auth/oauth/v2/token",
            request_headers=Headers([("Content-Type", "application/x-www-form-urlencoded")]),
            request_body=b"grant_type=client_credentials&scope=registry-inzage", status=200,
            response_headers=Headers([("Content-Type", "application/json;charset=UTF-8")]),
            body=(f'{{"access_token": "{token}", "token_type": "Bearer", "expires_in": 3600, '
                  f'"scope": "registry-inzage"}}').encode()))
        out.append(Exchange(
            method="GET", url="http://127.0.0.1:9/registry-inzage/v6",
            request_headers=Headers([("Authorization", f"Bearer {token}")]), request_body=b"", status=200,
            response_headers=Headers([("Content-Type", "application/json")]),
            body=f'{{"seen": "{token}", "note": "a page of the inquiry API"}}'.encode()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exchanges", type=int, nargs="+", default=[2000, 40000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        profile = Path(folder) / "capture.toml"
        profile.write_text('[profile]\nname = "redaction-benchmark"\ndescription = "token traffic"\n'
                           '[services.auth]\nmock = false\nauth_url = "http://127.0.0.1:9"\n'
                           'inquiry_base = "http://127.0.0.1:9"\n', encoding="utf-8")
        loaded = load_profile(str(profile))
        rates = []
        for count in args.exchanges:
            har = write_har(capture(count // 2), Path(folder) / f"capture-{count}.har")
            started = time.perf_counter()
            traffic = load_traffic([str(har)], loaded, Redactor())
            took = time.perf_counter() - started
            assert len(traffic.auth) == count
            rates.append(took / count * 1e6)
            print(f"{count:>6} exchanges, {har.stat().st_size / 2**20:5.1f} MiB: {took:6.2f} s, "
                  f"{rates[-1]:6.0f} us per exchange")
        print(f"per exchange, largest / smallest: {rates[-1] / rates[0]:.2f} (target: at most 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
