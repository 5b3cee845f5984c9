"""Fixtures of the auth suite: one token response of each flow, shared by the checks of a
module that only read it (the response of a code exchange and of a client-credentials request).

A flow that fails here blocks the checks that read its response (never not applicable: the
positive flow they start from failed), with the same cause in each of them.

An environment whose clock the run moves for everyone (the clock hook, services.auth.clock,
or real-time waits) ages the tokens held here: a response is reused only while the run's
clock ledger shows no move since it was issued, and against a clock hook each check takes its
turn on the clock (conformance/auth/shared_clock.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.auth.flows import EXCHANGE_CAUSE
from conformance.auth.session import open_flows
from conformance.auth.shared_clock import ClockLedger, clock_turn
from conformance.findings import require


def _waits(node) -> bool:
    """Whether the test's check waits out lifetimes (its declaration's `sends`)."""
    from conformance.checks.registry import check_by_id

    marker = node.get_closest_marker("check")
    return marker is not None and "waits" in check_by_id(marker.args[0]).sends


def _rules(targets):
    """The seed's rules for the client, for these flows' clients, audience and redirect URI."""
    from conformance.checks.client.tokens import AuthRefusal

    return AuthRefusal(audience=targets.audience, redirect_uri=targets.redirect_uri, clients=targets.clients,
                       client_secret=targets.secrets.get("client_secret"))


@pytest.fixture(autouse=True)
def shared_clock_turn(request: pytest.FixtureRequest, profile, conformance_state) -> Iterator[None]:
    """Against a clock hook, a check marked `waits` moves the clock alone; every other check
    holds the clock still for its whole duration (its tokens, its control and its changed
    request all live in one stretch of the environment's time). The local mock's checks move
    private clocks; real-time waits age everyone's tokens anyway, locked or not."""
    auth = profile.auth
    hook = auth is not None and not auth.mock and bool(auth.clock)
    with clock_turn(conformance_state.schedule_dir if hook else None,
                    alone=_waits(request.node)):
        yield


@pytest.fixture(scope="module")
def _issued() -> dict[str, tuple[int, Any, BaseException | None]]:
    """flow -> (clock moves when issued, the response, or the exception that blocked it)."""
    return {}


def _current(issued: dict, flow: str, ledger: ClockLedger, issue: Callable[[], Any]) -> Any:
    moves = ledger.read().count
    held = issued.get(flow)
    if held is None or held[0] != moves:  # never issued here, or issued before a clock move
        try:
            held = (moves, issue(), None)
        except Exception as exc:  # kept as a module fixture keeps its error: one attempt per module
            held = (moves, None, exc)
        issued[flow] = held
    if held[2] is not None:
        raise held[2]
    return held[1]


@pytest.fixture
def clock_ledger(conformance_state) -> ClockLedger:
    return ClockLedger(conformance_state.schedule_dir)


def _code_exchange(auth_flows):
    _, tokens = auth_flows.code_tokens()
    require(tokens.issued, "a token from the code exchange", EXCHANGE_CAUSE.format("confidential", tokens.answer))
    return tokens


@pytest.fixture
def code_tokens(shared_clock_turn, auth_flows, _issued, clock_ledger):
    return _current(_issued, "code", clock_ledger, lambda: _code_exchange(auth_flows))


@pytest.fixture
def cc_tokens(shared_clock_turn, auth_flows, _issued, clock_ledger):
    return _current(_issued, "client_credentials", clock_ledger, auth_flows.cc_token)


def _refresh_response(auth_flows):
    """A refresh response: the refresh of a fresh code exchange's refresh token (its own
    exchange, so the module's code response keeps its refresh token). An unattended profile
    (login driver refresh_token) starts every flow with a refresh: that response is one."""
    authz, tokens = auth_flows.code_tokens()
    require(tokens.issued, "a token from the code exchange", EXCHANGE_CAUSE.format("confidential", tokens.answer))
    if authz is None:
        return tokens
    require(tokens.refresh_token is not None, "a refresh token from the code exchange",
            EXCHANGE_CAUSE.format("confidential", tokens.answer) + ", no refresh_token")
    refreshed = auth_flows.refresh(tokens.refresh_token)
    require(refreshed.issued, "a token from a refresh", f"refresh (valid refresh token) -> {refreshed.answer}")
    return refreshed


@pytest.fixture
def refresh_tokens(shared_clock_turn, auth_flows, _issued, clock_ledger) -> Callable[[], Any]:
    """The refresh response, asked for when a check has judged the other responses: a refresh
    that fails blocks the refresh part of a check, after the code and client-credentials
    responses were judged (a finding there stands)."""
    return lambda: _current(_issued, "refresh", clock_ledger, lambda: _refresh_response(auth_flows))


@pytest.fixture(scope="module")
def auth_fresh(auth_clocked):
    """An authorization server on which this module's checks are the first to authorize: on
    the local mock a private instance (auth_clocked starts one per module), elsewhere the
    profile's server. A check that needs to see what happens the first time (a consent page)
    lives in a module of its own."""
    return auth_clocked


@pytest.fixture(scope="session")
def auth_flows(conformance_state, profile, redactor, run_context):
    """The token flows against the profile's authorization server (shared: nobody moves its clock)."""
    if profile.auth is None or "auth" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no authorization service")
    flows, api = open_flows(profile, conformance_state.samples.get("auth", {}), conformance_state.secrets, redactor,
                            run_context, private=False, rules=_rules)
    yield flows
    api.close()


@pytest.fixture(scope="module")
def auth_clocked(conformance_state, profile, redactor, run_context, auth_flows):
    """Flows whose clock a check may move: a private mock instance with its own clock, or
    the real environment, where moving the clock means waiting (marker `waits`)."""
    if not profile.auth or not profile.auth.mock:
        flows, api = open_flows(profile, {}, conformance_state.secrets, redactor, run_context, private=True,
                                rules=_rules)
        yield flows
        api.close()
        return
    with run_context.mock_cluster() as cluster:
        info = cluster.start_auth()
        flows, api = open_flows(profile, info, conformance_state.secrets, redactor, run_context, private=True,
                                rules=_rules)
        yield flows
        api.close()
