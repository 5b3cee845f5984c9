"""Wall time of a full local-mock run of one suite with the default budget (`conformance run --suite S`).

Targets on this 2-core machine: the address suite under 60 s, the auth suite under 120 s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--suite", default="address", choices=("address", "auth", "soap"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "run", "--suite", args.suite, "--no-html",
             "-n", args.workers, "--report-dir", tmp, "--", "-q"],
            cwd=REPO, capture_output=True, text=True,
        )
        elapsed = time.monotonic() - started
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    print(f"full local-mock {args.suite} run (-n {args.workers}): {elapsed:.1f} s wall, exit {proc.returncode}, "
          f"{len(summary['checks'])} check entries, counts {summary['counts']}")


if __name__ == "__main__":
    main()
