"""The harness's contract fuzzing against a plain `schemathesis run`, same description, mock and examples.

Both run serially against one mock started here; the ratio is harness / plain.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _mock import start_local_mock, valid_key  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DESCRIPTION = REPO / "conformance" / "openapi" / "address-v2.yaml"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,ignored_auth"


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int]:
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return time.monotonic() - started, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", default="25")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    with start_local_mock() as cluster, tempfile.TemporaryDirectory() as tmp:
        key = valid_key(cluster)
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "conformance.checks.address.st_checks"}
        plain, plain_code = timed(
            [str(bin_dir / "schemathesis"), "run", str(DESCRIPTION), "--url", cluster.urls["address"],
             "-H", f"X-Api-Key: {key}", "-n", args.examples, "--seed", "1", "--phases", "examples,coverage,fuzzing",
             "-c", CHECKS + ",address_problem_json,address_api_version,address_pagination_headers,address_success_media_type",
             "--continue-on-failure"],
            env, Path(tmp),  # a neutral cwd: schemathesis.toml must not be auto-discovered
        )
        harness, harness_code = timed(
            [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
             "--report-dir", tmp + "/h", "--seed", "1", "--max-examples", args.examples, "--",
             "-q", "-k", "test_contract and not stateful and not should_rules"],
            os.environ.copy(), REPO,
        )
    print(f"plain schemathesis run: {plain:.1f} s (exit {plain_code}); harness contract tests: {harness:.1f} s "
          f"(exit {harness_code}); ratio harness/plain = {harness / plain:.2f} at {args.examples} examples per operation")
    print("note: the harness run includes starting its own mock and pytest collection; both judge the same checks")


if __name__ == "__main__":
    main()
