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

import forked_cli
import pytest
from vendor_profiles import vendor_profile as shared_vendor_profile

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
    return shared_vendor_profile(path, base_url, samples, extra, key_var=KEY_VAR)


def cli(*args: str, key: str) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
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


# --------------------------------------------------------------------------- issue 43: what discover owns
def test_discover_keeps_the_skeletons_comments_and_other_sections(tmp_path: Path, mock: tuple[str, str]) -> None:
    """`discover` dropped the commented auth and SOAP template (about 60 lines) of a profile
    `profile new` wrote. It changes only the samples and their record now, and prefers samples
    that have what checks need beyond their contracts (the full data's first candidate for
    adresseerbaarobject_eindstatus has no building: another is taken)."""
    from conformance.profile_new import skeleton

    url, key = mock
    path = tmp_path / "vendor-x.toml"
    # Unpaced: pacing is tests/test_pacing.py's subject; paced, the two discoveries took 33 s.
    paced = "requests_per_second = 5 "
    assert paced in skeleton("vendor-x")
    original = skeleton("vendor-x").replace("https://<host>/lvbag/individuelebevragingen/v2", url) \
        .replace(paced, "requests_per_second = 0 ")
    path.write_text(original)
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "discover", "--profile", str(path)],
                          capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "VENDOR_X_API_KEY": key})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    written = path.read_text()
    head = original[:original.index("[services.address.samples]")]
    tail = original[original.index("# --- the authorization server"):]
    assert written.startswith(head), "what precedes the samples is kept byte for byte"
    assert written.endswith(tail), "the auth and SOAP templates and every section after them are kept byte for byte"
    assert tail.count("\n") > 60
    profile = load_profile(str(path))
    assert set(profile.address.samples) == set(ADDRESS_SAMPLES)
    assert set(profile.address.samples_verified) == {"at", *ADDRESS_SAMPLES}
    assert '# pand = "..."' not in written  # the skeleton's placeholders of what was written are filled in
    assert "lacks what checks need beyond its contract: no building (maaktDeelUitVan)" in proc.stdout
    assert "sample properties checks still lack" not in proc.stdout  # the samples taken have them
    # A second discovery changes the samples' lines only.
    again = forked_cli.run([sys.executable, "-m", "conformance.cli", "discover", "--profile", str(path)],
                           capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                           env={**os.environ, "VENDOR_X_API_KEY": key})
    assert again.returncode == 0, again.stdout[-2000:]
    rewritten = path.read_text()
    assert rewritten.startswith(head) and rewritten.endswith(tail)
    assert [line for line in rewritten.splitlines() if "written by" not in line and not line.startswith("at = ")] == \
        [line for line in written.splitlines() if "written by" not in line and not line.startswith("at = ")]


def test_write_samples_keeps_comments_inside_and_around_the_samples(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text("""# my profile
[profile]
name = "p"   # short
description = "d"

[services.address]
mock = false
base_url = "http://127.0.0.1:1/v2"
[services.address.secrets]
api_key = "K"

[services.address.samples]   # the samples
# chosen with the vendor, ticket REG-7
pand = "1"
# [services.auth]
# auth_url = "https://auth.example"   # later

[limits]
requests_per_second = 2   # their rate
""")
    write_samples(path, {"pand": C.Verdict("pand", "2", "verified", "holds 48 addressable objects")}, sent=5)
    text = path.read_text()
    assert text.startswith('# my profile\n[profile]\nname = "p"   # short\n')
    assert "[services.address.samples]   # the samples\n# chosen with the vendor, ticket REG-7\n" in text
    assert 'pand = "2" # holds 48 addressable objects' in text and 'pand = "1"' not in text
    assert text.index("# [services.auth]") > text.index("[services.address.samples_verified]")
    assert '# auth_url = "https://auth.example"   # later\n\n[limits]\nrequests_per_second = 2   # their rate\n' in text
    assert load_profile(str(path)).address.samples_verified["pand"] == "2"


def _object(ident: str, *, buildings: list[str], main: str | None = "0363200000000001", established: str = "N",
            point: tuple[float, float] | None = (120000.0, 480000.0), registered: str | None = "2020-01-01T00:00:00",
            begin: str = "2010-01-01") -> dict:
    data: dict = {"identificatie": ident, "maaktDeelUitVan": buildings, "geconstateerd": established,
                  "voorkomen": {"beginGeldigheid": begin, "tijdstipRegistratie": registered}}
    if main:
        data["heeftAlsHoofdAdres"] = main
    if point:
        data["geometrie"] = {"punt": {"type": "Point", "coordinates": list(point)}}
    return {"verblijfsobject": {"verblijfsobject": data}}


def _collection(name: str, items: list[dict]) -> Exchange:
    return answer(200, {"_embedded": {name: items}})


def test_the_properties_checks_need_beyond_a_contract_are_named_as_their_reasons() -> None:
    ident = "0363010000000001"
    moved = [_object(ident, buildings=["0363100000000001"], begin="2010-01-01"),
             _object(ident, buildings=["0363100000000002"], begin="2015-01-01")]
    gaps = C.missing_properties(scripted(_collection("voorkomens", moved), answer(200, moved[1])),
                                "adresseerbaarobject_historie", ident)
    assert [g.what for g in gaps] == [f"no building (maaktDeelUitVan) of the sample adresseerbaarobject_historie {ident} "
                                      "in every occurrence"]
    assert gaps[0].checks == ("address.adresseerbareobjecten.geldig_op [pandIdentificaties]",
                              "address.adresseerbareobjecten.beschikbaar_op [pandIdentificaties]")
    steady = [_object(ident, buildings=["0363100000000001"]), _object(ident, buildings=["0363100000000001"])]
    assert C.missing_properties(scripted(_collection("voorkomens", steady), answer(200, steady[1])),
                                "adresseerbaarobject_historie", ident) == []
    plain = [_object(ident, buildings=["0363100000000001"])]
    box = C.missing_properties(scripted(_collection("adresseerbareObjecten", plain)), "bbox", "1,1,2,2")
    assert [g.what for g in box] == ["no sample box holding an established (geconstateerd) object"]
    held = [_object(ident, buildings=["0363100000000001"], established="J")]
    assert C.missing_properties(scripted(_collection("adresseerbareObjecten", held)), "bbox", "1,1,2,2") == []
    assert C.missing_properties(scripted(answer(503, {})), "bbox", "1,1,2,2") is None  # the server's answer: unjudged
    assert C.missing_properties(scripted(), "pand", "1") == []  # nothing asked of it beyond its contract


def test_discover_says_what_to_add_for_each_property_lacking() -> None:
    from conformance.samples.cli import property_lines

    gap = C.Missing("no sample box holding an established (geconstateerd) object",
                    ("address.adresseerbareobjecten.geconstateerd_filter",))
    lines = property_lines({"bbox": [gap], "pand": []}, rediscovered=False)
    assert lines[0].startswith("sample properties checks still lack (1;")
    assert "bbox: no sample box holding an established (geconstateerd) object: " \
           "address.adresseerbareobjecten.geconstateerd_filter not judged" in lines[1]
    assert "(services.address.samples.bbox)" in lines[2] and "geconstateerd" in lines[2]
    assert "`conformance discover --all`" in lines[-1]
    assert "--query" in property_lines({"bbox": [gap]}, rediscovered=True)[-1]
    assert property_lines({"pand": [], "bbox": None}, rediscovered=False) == []
