"""`conformance proxy` keeps its capture on disk with bounded memory: a session of large answers
(nine of about 7 MB, as the security review sent) stays under 200 MB and ends with its summary,
naming the answers whose bodies it did not keep instead of refusing its own capture (exit 2)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from process_peak import PeakRss
from test_proxy import Proxy, profile_file

from conformance.findings import Finding
from conformance.http.exchange import Exchange, Headers
from conformance.http.redaction import Redactor
from conformance.passive.har import JUDGED_LIVE, NOT_KEPT, Capture, read_har
from conformance.profiles import load_profile

ANSWERS = 9
PEAK_MB = 200.0
BASE = "/lvbag/individuelebevragingen/v2"


def _page(addresses: int) -> bytes:
    """A HAL page of address-like objects (the shape an address API answers with), about 770
    bytes each; its self link is filled in per request."""
    one = {"straat": "Laan van de Helende Meesters", "huisnummer": 12, "huisletter": "A", "postcode": "1181VA",
           "woonplaatsNaam": "Amstelveen", "nummeraanduidingIdentificatie": "0362200000123456",
           "adresseerbaarObjectIdentificatie": "0362010000123456", "pandIdentificaties": ["0362100000123456"],
           "adresregel5": "Laan van de Helende Meesters 12 A", "adresregel6": "1181VA AMSTELVEEN",
           "korteNaam": "Helende Meesters", "openbareRuimteIdentificatie": "0362300000123456",
           "woonplaatsIdentificatie": "1050", "isNevenadres": False,
           "_links": {"self": {"href": f"{BASE}/adressen/0362200000123456"},
                      "openbareRuimte": {"href": f"{BASE}/openbareruimten/0362300000123456"},
                      "woonplaats": {"href": f"{BASE}/woonplaatsen/1050"}}}
    page = {"_links": {"self": {"href": "SELF"}}, "_embedded": {"adressen": [one] * addresses}}
    return json.dumps(page).encode()


BODY = _page(9_300)  # about 7 MB


class _Large(BaseHTTPRequestHandler):
    """An address API whose every answer is a page of about 7 MB."""

    def do_GET(self) -> None:  # noqa: N802
        body = BODY.replace(b'"SELF"', json.dumps(self.path).encode(), 1)
        self.send_response(200)
        self.send_header("Content-Type", "application/hal+json")
        self.send_header("API-Version", "2.0.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def large_upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Large)  # loopback only
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{BASE}"
    finally:
        server.shutdown()
        server.server_close()


def test_large_answers_are_captured_within_bounded_memory_and_summarised(large_upstream: str, tmp_path: Path) -> None:
    assert 6_500_000 < len(BODY) < 7_500_000
    key = "k" * 20
    report = tmp_path / "report"
    proxy = Proxy(profile_file(tmp_path / "p.toml", large_upstream), report, key)
    peak = PeakRss(proxy.proc.pid)
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.05):  # polls the process's memory; synchronises with nothing
            peak.sample()

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        address = proxy.listener("address")
        with httpx.Client(trust_env=False, timeout=120) as client:
            for n in range(ANSWERS):  # the last one without the key: a MUST failure of the client
                answer = client.get(f"{address}/adressen", params={"postcode": "1181VA", "huisnummer": str(n + 1)},
                                    headers={"X-Api-Key": key} if n < ANSWERS - 1 else {})
                assert answer.status_code == 200 and len(answer.content) > 6_500_000  # handed over whole
        proxy.wait_for("FAIL client.address.api_key_sent")
    finally:
        code = proxy.stop()
        sampling.set()
        sampler.join()
    out = "\n".join(proxy.seen)
    assert code != 2, out[-3000:]
    assert peak.peak_mb < PEAK_MB, f"the proxy took {peak.peak_mb:.0f} MB"
    summary = json.loads((report / "summary.json").read_text())
    assert code == summary["exit_code"] == 1, out[-3000:]  # the MUST failure printed live is the verdict's too
    got = {e["check"]: e["outcome"] for e in summary["checks"]}
    assert got["client.address.api_key_sent"] == "failed"
    # Judged at the end by the verdicts given on the whole answers, not on what is left of them.
    assert got["address.hal.self_link_present"] == got["address.hal.links_within_base"] == "passed"
    gap = f"{ANSWERS} answers' bodies not kept"
    assert any(gap in line for line in summary["capture_gaps"]), summary.get("capture_gaps")
    assert any(gap in line for line in proxy.seen), out[-3000:]
    assert gap in summary["traffic_note"]
    har = json.loads((report / "traffic.har").read_text())["log"]["entries"]
    assert len(har) == ANSWERS and all(e["response"]["status"] == 200 for e in har)
    assert sum("not kept" in e.get("comment", "") for e in har) == ANSWERS
    assert key not in (report / "traffic.har").read_text()


# --------------------------------------------------------------------------- the capture itself
def _exchange(n: int, body: bytes = b'{"_links": {"self": {"href": "/x"}}}', request_body: bytes = b"") -> Exchange:
    return Exchange(method="GET", url=f"http://127.0.0.1:9{BASE}/adressen?huisnummer={n}",
                    request_headers=Headers([("X-Api-Key", "k" * 20)]), request_body=request_body, status=200,
                    response_headers=Headers([("Content-Type", "application/hal+json")]), body=body)


def test_a_capture_keeps_what_its_har_can_hold_and_names_the_rest(tmp_path: Path) -> None:
    capture = Capture(tmp_path, max_body=2000, max_bytes=9000, max_entries=50)
    capture.append(_exchange(1))
    capture.append(_exchange(2, body=b"{" + b" " * 5000 + b"}"), {"address.hal.self_link_present": None})
    capture.append(_exchange(3, request_body=b"x" * 3000), {})
    while capture.max_bytes - capture.size - 2 > 1200 + 800:  # whole exchanges (about 800 bytes each) ...
        capture.append(_exchange(4))
    # ... until less room is left than one under the body cap takes whole (2,700), more than without it (900)
    capture.append(_exchange(5, body=b"{" + b" " * 1900 + b"}"))
    for _ in range(10):
        capture.append(_exchange(6))  # no room even without a body
    capture.close()
    har = capture.write_har(tmp_path / "capture.har")
    assert har.stat().st_size <= 9000 + 200  # the cap, and the HAR's own frame
    back = read_har(har)
    assert len(back) == capture.kept == len(capture) - capture.dropped
    whole, large, large_request = back[:3]
    assert whole.body == _exchange(1).body and not whole.truncated and NOT_KEPT not in whole.notes
    assert large.body == b"" and large.truncated
    assert large.notes[NOT_KEPT] == ["response body of 5,002 bytes (over the 2,000 bytes kept of a body)"]
    assert large.notes[JUDGED_LIVE] == {"address.hal.self_link_present": None}
    assert large_request.request_body == b"" and large_request.body == _exchange(3).body
    assert not large_request.truncated  # the answer is whole
    assert back[-1].url.endswith("=5") and back[-1].body == b"" and back[-1].truncated
    assert capture.gaps() == ["1 answers' bodies not kept: larger than 2,000 bytes",
                              "1 requests' bodies not kept: larger than 2,000 bytes",
                              "1 exchanges' bodies not kept: the capture had reached 9,000 bytes",
                              "10 exchanges not kept at all: the capture holds at most 50 exchanges and 9,000 bytes"]


def test_a_capture_keeps_at_most_its_entries() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        capture = Capture(folder, max_entries=2)
        for n in range(5):
            capture.append(_exchange(n))
        capture.close()
        assert [ex.url[-2:] for ex in capture.exchanges()] == ["=0", "=1"] and len(capture) == 5
        assert capture.gaps() == ["3 exchanges not kept at all: the capture holds at most 2 exchanges and 48 MiB"]


def test_an_exchange_whose_body_was_not_kept_is_judged_by_its_live_verdicts(tmp_path: Path) -> None:
    """The rules that read a body (a HAL self link) would find an answer without one broken:
    on an exchange the capture kept without its body, the verdict given on it whole stands."""
    from conformance.passive.judge import judge_rule
    from conformance.passive.rules import Context, all_rules
    from conformance.passive.traffic import Traffic, sort_into

    profile = load_profile(str(profile_file(tmp_path / "p.toml", f"http://127.0.0.1:9{BASE}")))
    rule = next(r for r in all_rules() if r.check == "address.hal.self_link_present")
    capture = Capture(tmp_path, max_body=10)
    capture.append(_exchange(1), {rule.check: None})  # passed as it passed
    capture.append(_exchange(2), {rule.check: "response has no _links.self href"})
    capture.append(_exchange(3), {})  # not judged live by this rule: judged on what is left
    capture.close()

    def judged(index: int) -> str:
        traffic = Traffic()
        sort_into(traffic, list(capture.exchanges())[index], profile, Redactor())
        try:
            judge_rule(rule, traffic, Context(profile))
        except Finding as finding:
            return finding.message
        return "passed"

    assert judged(0) == "passed"
    assert "response has no _links.self href (judged as it passed; its body was not kept)" in judged(1)
    assert "response body is not a JSON object" in judged(2)
