"""The mock cluster's answer delay (`MockCluster(answer_delay_s=...)`, `conformance mock
--answer-delay`): every answer is held that long, and requests in flight together wait
together instead of queueing (benchmarks/slow_service.py relies on both)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conformance import cli
from conformance.mocks import launcher
from conformance.mocks.faults import FaultSet
from conformance.mocks.launcher import MockCluster
from conformance.profiles import load_profile

DELAY_S = 0.3


@pytest.fixture(scope="module")
def soap_url() -> Iterator[str]:
    # The SOAP mock alone: the delay is the cluster's, whichever servers it starts.
    profile = dataclasses.replace(load_profile("local-mock"), address=None, auth=None)
    with MockCluster(profile, FaultSet(), answer_delay_s=DELAY_S) as cluster:
        yield cluster.urls["soap"]


def test_an_answer_is_held_the_delay(soap_url: str) -> None:
    with httpx.Client(trust_env=False, timeout=10) as client:
        started = time.monotonic()
        response = client.get(soap_url)
        elapsed = time.monotonic() - started
    assert response.status_code < 600  # an answer, whatever it says
    assert elapsed >= DELAY_S


def test_concurrent_requests_are_delayed_together(soap_url: str) -> None:
    count = 4
    clients = [httpx.Client(trust_env=False, timeout=10) for _ in range(count)]
    ready = threading.Barrier(count + 1)
    statuses: list[int] = []
    lock = threading.Lock()

    def send(client: httpx.Client) -> None:
        ready.wait()
        status = client.get(soap_url).status_code
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=send, args=(client,)) for client in clients]
    try:
        for thread in threads:
            thread.start()
        ready.wait()  # all four leave together
        started = time.monotonic()
        for thread in threads:
            thread.join(10)
        total = time.monotonic() - started
    finally:
        for client in clients:
            client.close()
    assert len(statuses) == count
    assert DELAY_S <= total < 0.9, f"{count} concurrent answers took {total:.2f} s (queued would be {count * DELAY_S:g} s)"


def test_conformance_mock_takes_answer_delay() -> None:
    args = cli.build_parser().parse_args(["mock", "--answer-delay", "0.3"])
    assert args.answer_delay == 0.3 and args.handler is cli.cmd_mock
    assert cli.build_parser().parse_args(["mock"]).answer_delay == 0.0


class _Started(Exception):
    pass


def test_conformance_mock_passes_answer_delay_to_the_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    given: dict[str, Any] = {}

    class FakeCluster:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            given.update(kwargs)

        def __enter__(self) -> None:
            raise _Started  # no server is started: what it was given is the point

        def __exit__(self, *exc: object) -> None:
            pass

    monkeypatch.setattr(launcher, "MockCluster", FakeCluster)
    args = cli.build_parser().parse_args(["mock", "--answer-delay", "2.5"])
    with pytest.raises(_Started):
        cli.cmd_mock(args)
    assert given["answer_delay_s"] == 2.5


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_bad_answer_delay_is_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["mock", f"--answer-delay={value}"]) == 2
    assert "--answer-delay" in capsys.readouterr().err
