"""A deployment without the filing or inquiry API: the checks that need it do not apply, the
positive flows are judged up to their tokens, and the verdict does not suffer (issue: a
deployment without them turned the main positive flows into MUST failures)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.errors import ConfigError
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile


def profile_without_apis(tmp_path: Path) -> Path:
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    text = text.replace("[services.auth]\nmock = true\n", "[services.auth]\nmock = true\nresource_servers = []\n")
    assert "resource_servers = []" in text
    text = text.replace('name = "local-mock"', 'name = "no-resource-servers"')
    text = text.replace('"../openapi/', f'"{REPO_ROOT}/conformance/openapi/')
    path = tmp_path / "no-apis.toml"
    path.write_text(text)
    return path


def test_checks_that_need_an_absent_api_do_not_apply(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "--profile",
           str(profile_without_apis(tmp_path)), "-n", "0", "--no-html", "--report-dir", str(tmp_path / "run")]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    outcomes = {e["check"]: (e["outcome"], e["reason"]) for e in summary["checks"]}
    for check in ("auth.code.confidential_flow", "auth.code.public_flow", "auth.cc.valid_assertion_accepted",
                  "auth.refresh.works"):
        assert outcomes[check][0] == "passed", (check, outcomes[check])
    for check in ("auth.use.missing_token_refused", "auth.use.wrong_scope_forbidden", "auth.code.reuse_revokes_tokens"):
        assert outcomes[check][0] == "not_applicable", (check, outcomes[check])
        assert "has no" in outcomes[check][1] and "resource_servers" in outcomes[check][1]
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_a_named_resource_server_needs_its_base(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[profile]\nname = "x"\ndescription = "y"\n[services.auth]\nmock = false\n'
                    'auth_url = "https://auth.example"\nfiling_base = "https://api.example"\n'
                    'resource_servers = ["filing", "inquiry"]\n')
    with pytest.raises(ConfigError, match="inquiry_base"):
        load_profile(str(path))
    path.write_text('[profile]\nname = "x"\ndescription = "y"\n[services.auth]\nmock = false\n'
                    'auth_url = "https://auth.example"\nfiling_base = "https://api.example"\n')
    assert load_profile(str(path)).auth.resource_servers == ("filing",)
