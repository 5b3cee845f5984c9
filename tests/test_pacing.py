"""Adaptive pacing: the harness reads the server's rate-limit headers and never lets the rate
limit decide a check that is not about it."""

from __future__ import annotations

import pytest
from rate_limited_server import RateLimitedServer

from conformance.checks.finding import Blocked
from conformance.http.client import ApiClient, Pacer, Recorder, retry_after_s
from conformance.http.redaction import Redactor


def client(url: str, pacer: Pacer, *, retry: bool) -> tuple[ApiClient, Recorder]:
    recorder = Recorder()
    return ApiClient(url, redactor=Redactor(), recorder=recorder, pacer=pacer, retry_rate_limited=retry), recorder


def test_paced_at_the_servers_limit_provokes_no_429() -> None:
    # Paced at exactly the server's limit: window edges alone would let some through twice;
    # RateLimit-Remaining reaching 0 holds the next request until RateLimit-Reset.
    with RateLimitedServer(per_second=10) as server:
        api, _ = client(server.url, Pacer(10), retry=True)
        assert all(api.get("/x").status == 200 for _ in range(35))
        assert server.answered.get(429, 0) == 0, server.answered


def test_a_429_is_waited_out_and_sent_again() -> None:
    with RateLimitedServer(per_second=3) as server:
        # Not adaptive, so the server must refuse some; each refusal is waited out and resent.
        api, recorder = client(server.url, Pacer(0, adaptive=False), retry=True)
        statuses = [api.get("/x").status for _ in range(8)]
        assert statuses == [200] * 8  # the rate limit decided none of them
        assert server.answered.get(429, 0) >= 1 and any(ex.status == 429 for ex in recorder.exchanges)


def test_a_flood_client_sees_its_429() -> None:
    with RateLimitedServer(per_second=3) as server:
        api, _ = client(server.url, Pacer(0, adaptive=False), retry=False)
        statuses = [api.get("/x").status for _ in range(10)]
        assert 429 in statuses


def test_a_retry_after_beyond_the_cap_blocks_the_check() -> None:
    with RateLimitedServer(per_second=1, always_429_for=3600) as server:
        api, _ = client(server.url, Pacer(0), retry=True)
        with pytest.raises(Blocked, match="429"):
            api.get("/x")
        assert server.answered == {429: 1}  # not sent again: an hour is past the cap


def test_retry_after_forms() -> None:
    assert retry_after_s("7") == 7 and retry_after_s(None) is None and retry_after_s("soon") is None
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # in the past
