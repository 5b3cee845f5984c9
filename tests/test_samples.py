"""Address samples: `conformance discover` finds them on a server, a run validates them at
its start (exit 2 for one that misses its contract), and the validation tells a wrong
sample from a server that answers about something else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.http.exchange import Exchange, Headers
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import ADDRESS_SAMPLES, load_profile
from conformance.samples import contracts as C
from conformance.samples.session import write_samples

KEY_VAR = "SAMPLES_TEST_API_KEY"


@pytest.fixture(scope="module")
def mock() -> Iterator[tuple[str, str]]:
    """A running local mock (address only) and its API key."""
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        yield cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]


def vendor_profile(path: Path, base_url: str, samples: dict[str, str] | None = None, extra: str = "") -> Path:
    table = "".join(f'{k} = "{v}"\n' for k, v in (samples or {}).items())
    path.write_text(f"""# a vendor's profile, as a user writes it
[profile]
name = "vendor-samples"
description = "the mock, as if it were a vendor's deployment"

[services.address]
mock = false
base_url = "{base_url}"   # the deployment
timeout_s = 10

[services.address.secrets]
api_key = "{KEY_VAR}"

[services.address.samples]
{table}
{extra}""")
    return path


def cli(*args: str, key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          timeout=600, cwd=REPO_ROOT, env={**os.environ, KEY_VAR: key})


def test_discover_finds_every_sample_and_they_pass_validation(tmp_path: Path, mock: tuple[str, str]) -> None:
    url, key = mock
    profile_file = vendor_profile(tmp_path / "vendor.toml", url, {"pand": "1951100000000101"})  # holds 4 objects
    proc = cli("discover", "--profile", str(profile_file), key=key)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(ADDRESS_SAMPLES)} of {len(ADDRESS_SAMPLES)} samples found" in proc.stdout
    assert "answers matched its response schema" in proc.stdout  # each answer judged as a run judges it
    assert "the profile's pand = 1951100000000101 is not taken: it holds 4 addressable objects" in proc.stdout
    text = profile_file.read_text()
    assert text.startswith("# a vendor's profile, as a user writes it")  # the rest of the file stays
    assert 'base_url = "' + url + '"   # the deployment' in text
    profile = load_profile(str(profile_file))
    assert set(profile.address.samples) == set(ADDRESS_SAMPLES)
    assert "# holds 48 addressable objects" in text  # a comment per sample saying what was verified
    # ... and a record of what met its contract, and when: a later run blames the environment for those.
    assert profile.address.samples_verified["at"]
    assert {k: v for k, v in profile.address.samples_verified.items() if k != "at"} == profile.address.samples
    # The run-start validation accepts what discovery wrote, and a whole run starts from it.
    run = cli("run", "--profile", str(profile_file), "--suite", "address", "-n", "0", "--no-html",
              "--report-dir", str(tmp_path / "run"), "--", "-q", "-k", "endpoints", key=key)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert run.returncode == 0, run.stdout[-3000:]
    assert {e["outcome"] for e in summary["checks"]} <= {"passed", "observation", "not_applicable", "not_judged", "skipped"}
    assert sum(e["outcome"] == "passed" for e in summary["checks"]) > 90


def test_a_sample_that_misses_its_contract_is_exit_2_naming_it(tmp_path: Path, mock: tuple[str, str]) -> None:
    url, key = mock
    side_address = "1951200000000110"
    profile_file = vendor_profile(tmp_path / "vendor.toml", url, {"nummeraanduiding": side_address})
    proc = cli("run", "--profile", str(profile_file), "--suite", "address", "-n", "0", "--no-html",
               "--report-dir", str(tmp_path / "run"), key=key)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    assert f"nummeraanduiding = '{side_address}' (services.address.samples.nummeraanduiding)" in out
    assert "indicatieNevenadres true (a side address)" in out
    assert "Traceback" not in out


def test_a_verified_sample_the_server_no_longer_shows_is_the_servers_change(tmp_path: Path) -> None:
    """A server that starts ignoring inclusiefEindStatus=true: the end-status sample no longer
    meets its contract. Unrecorded, that is the user's sample (exit 2); recorded by discover,
    it is the environment's change: the run goes on and the check of that rule fails (exit 1)."""
    from conformance.mocks import faults

    profile = load_profile("local-mock")
    with MockCluster(profile, faults.resolve(["address.end_status_flag_ignored"])) as cluster:
        url, key = cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]
        samples = dict(cluster.samples["address"])
        record = "[services.address.samples_verified]\nat = \"2026-11-01 09:00 UTC\"\n" + "".join(
            f'{k} = "{v}"\n' for k, v in samples.items())
        args = ("--suite", "address", "-n", "0", "--no-html", "--", "-q", "-k", "eind_status")
        mistaken = cli("run", "--profile", str(vendor_profile(tmp_path / "mine.toml", url, samples)),
                       "--report-dir", str(tmp_path / "mine"), *args, key=key)
        changed = cli("run", "--profile", str(vendor_profile(tmp_path / "theirs.toml", url, samples, record)),
                      "--report-dir", str(tmp_path / "theirs"), *args, key=key)
    assert mistaken.returncode == 2, mistaken.stdout[-2000:] + mistaken.stderr[-2000:]
    assert "services.address.samples.nummeraanduiding_eindstatus" in mistaken.stderr
    assert changed.returncode == 1, changed.stdout[-3000:] + changed.stderr[-2000:]
    summary = json.loads((tmp_path / "theirs" / "summary.json").read_text())
    assert "2026-11-01 09:00 UTC" in summary["sample_regressions"]["nummeraanduiding_eindstatus"]
    failed = {e["check"] for e in summary["checks"] if e["outcome"] == "failed" and e["severity"] == "MUST"}
    assert "address.adres.inclusief_eind_status" in failed
    assert "CHANGED sample nummeraanduiding_eindstatus" in changed.stdout


def test_an_unknown_sample_key_is_exit_2(tmp_path: Path, mock: tuple[str, str]) -> None:
    url, key = mock
    profile_file = vendor_profile(tmp_path / "vendor.toml", url, {"nummeraanduding": "1951200000000101"})
    proc = cli("discover", "--profile", str(profile_file), key=key)
    assert proc.returncode == 2
    assert "nummeraanduding" in proc.stderr


def test_discover_refuses_the_local_mock_profile() -> None:
    proc = cli("discover", "--profile", "local-mock", key="x")
    assert proc.returncode == 2
    assert "data generator" in proc.stderr


# --------------------------------------------------------------------------- judging, without a server
def answer(status: int, body: object, url: str = "http://h/x") -> Exchange:
    return Exchange(method="GET", url=url, request_headers=Headers(), request_body=b"", status=status,
                    response_headers=Headers([("content-type", "application/hal+json")]),
                    body=json.dumps(body).encode())


def scripted(*answers: Exchange):
    queue = list(answers)
    return lambda path, params: queue.pop(0)


def test_an_answer_about_another_object_is_not_the_samples_fault() -> None:
    # An example server (Prism) answers every id with its one example: the sample is not wrong.
    other = {"nummeraanduidingIdentificatie": "0226200000038923", "huisletter": "A"}
    verdict = C.verify(scripted(answer(200, other)), "nummeraanduiding", "0363200000000001", {})
    assert verdict.outcome == "unverifiable" and "another address" in verdict.detail


def test_an_answer_about_the_sample_that_shows_what_it_lacks_is_its_fault() -> None:
    mine = {"nummeraanduidingIdentificatie": "0363200000000001", "huisletter": "A"}
    verdict = C.verify(scripted(answer(200, mine)), "nummeraanduiding", "0363200000000001", {})
    assert verdict.outcome == "lacks" and "huisletter 'A'" in verdict.detail


@pytest.mark.parametrize(("status", "outcome"), [(404, "lacks"), (400, "lacks"), (500, "unverifiable"),
                                                 (403, "unverifiable"), (503, "unverifiable")])
def test_statuses_about_the_sample_and_about_the_server(status: int, outcome: str) -> None:
    verdict = C.verify(scripted(answer(status, {"status": status})), "nummeraanduiding_nevenadres", "1", {})
    assert verdict.outcome == outcome


def test_a_refused_key_stops_verification() -> None:
    with pytest.raises(C.KeyRefused):
        C.verify(scripted(answer(401, {"status": 401, "code": "authentication"})), "nummeraanduiding", "1", {})


def test_an_unknown_id_that_exists_lacks_and_one_the_server_ignores_is_unverifiable() -> None:
    exists = answer(200, {"nummeraanduidingIdentificatie": "0363209999999999"})
    assert C.verify(scripted(exists), "unknown_nummeraanduiding", "0363209999999999", {}).outcome == "lacks"
    example = answer(200, {"nummeraanduidingIdentificatie": "0226200000038923"})
    assert C.verify(scripted(example), "unknown_nummeraanduiding", "0363209999999999", {}).outcome == "unverifiable"


def test_a_bbox_is_judged_before_any_request() -> None:
    def no_request(path, params):
        raise AssertionError("no request for a malformed or oversized box")

    assert "more than 250000" in C.verify(no_request, "bbox", "0,0,1000,1000", {}).detail
    assert C.verify(no_request, "bbox", "10,10,0,0", {}).outcome == "lacks"
    assert C.verify(no_request, "woonplaats", "71", {}).outcome == "lacks"


def test_a_server_that_breaks_http_ends_the_validation() -> None:
    from conformance.http.limits import HttpViolation
    from conformance.samples.session import validate

    calls: list[str] = []

    def broken(path, params):
        calls.append(path)
        raise HttpViolation("deadline", "response not complete within 5 s, stopped waiting")

    profile = load_profile(str(REPO_ROOT / "profiles" / "local-mock.toml"))
    profile.address.samples.update({"nummeraanduiding": "1", "verblijfsobject": "2", "pand": "3"})
    lines: list[str] = []
    assert validate(profile, broken, log=lines.append) == {}  # nothing judged, so nothing changed
    assert len(calls) == 1, "one unanswered request is enough"
    assert "samples not verified" in lines[0]


def test_write_samples_comments_what_it_did_not_find(tmp_path: Path) -> None:
    path = vendor_profile(tmp_path / "p.toml", "http://127.0.0.1:1/v2", {"woonplaats": "7101"})
    verdicts = {"woonplaats": C.Verdict("woonplaats", "7101", "verified", "4 digits"),
                "pand": C.Verdict("pand", "9", "lacks", "holds 4 addressable objects, fewer than 45")}
    write_samples(path, verdicts, sent=3)
    text = path.read_text()
    assert 'woonplaats = "7101" # 4 digits' in text
    assert "# pand: not found (last candidate 9: holds 4 addressable objects, fewer than 45)" in text
    assert load_profile(str(path)).address.samples == {"woonplaats": "7101"}


def test_a_refused_key_is_exit_2_naming_its_variable(tmp_path: Path, mock: tuple[str, str]) -> None:
    url, _ = mock
    profile_file = vendor_profile(tmp_path / "vendor.toml", url, {"pand": "1951100000000120"})
    before = profile_file.read_text()
    proc = cli("discover", "--profile", str(profile_file), key="not-the-key")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"refuses the key in {KEY_VAR}" in proc.stderr and "401" in proc.stderr
    assert profile_file.read_text() == before


def test_a_sample_that_cannot_be_judged_is_kept_as_given(tmp_path: Path) -> None:
    path = vendor_profile(tmp_path / "p.toml", "http://127.0.0.1:1/v2", {"pand": "1951100000000120"})
    write_samples(path, {"pand": C.Verdict("pand", "1951100000000120", "unverifiable", "GET /adresseerbareobjecten -> 503")},
                  sent=1)
    assert load_profile(str(path)).address.samples == {"pand": "1951100000000120"}
    assert "as given, not verified: GET /adresseerbareobjecten -> 503" in path.read_text()
