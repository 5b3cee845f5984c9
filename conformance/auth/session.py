"""The token flows of a run against the profile's authorization server, built from what the
run shares (`run`: conformance/run_context.py, through the suites' `run_context` fixture):
its recorder, pacing and bounds, its clock. suites/auth/conftest.py makes the fixtures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.auth.browser import Browser
from conformance.auth.flows import AuthFlows, AuthTargets, HookClock, MockClock, RealClock
from conformance.auth.shared_clock import ClockLedger
from conformance.auth.targets import build_targets
from conformance.http.client import ApiClient
from conformance.http.intent import Switches
from conformance.http.redaction import Redactor
from conformance.profiles import Profile


def open_flows(profile: Profile, info: dict[str, str], secrets: dict[str, str], redactor: Redactor, run: Any, *,
               private: bool, rules: Callable[[AuthTargets], Callable[[Any], str | None]] | None = None,
               ) -> tuple[AuthFlows, ApiClient]:
    """(flows, the client to close). `private`: flows whose clock a check may move (a private
    mock's clock, or real-time waits); otherwise nobody moves the clock but a clock hook.
    `rules`: the seed's rules for the client, made for the flows' targets
    (conformance/checks/client/tokens.py AuthRefusal): every request of the flows, logins
    included, is read by them, and one that breaks them leaves only where the profile's
    safety switches allow requests designed to be refused (conformance/http/intent.py)."""
    assert profile.auth is not None
    service = profile.auth
    pacer = run.pacer("auth")
    # Where its tokens, secrets and assertions may go: the authorization server, its resource
    # servers and the environment's clock hook, as the profile (or the local mock) names them.
    home = [u for u in (info.get("auth_url"), info.get("filing_base"), info.get("inquiry_base")) if u] + list(service.bases)
    switches = Switches.of(profile.safety)
    api = ApiClient(info.get("auth_url") or service.base_url or "", redactor=redactor, recorder=run.recorder,
                    pacer=pacer, timeout_s=service.timeout_s, limits=profile.limits.http(), home=home,
                    trust=service.trust, switches=switches)
    clock = None
    ledger = ClockLedger(run.state.schedule_dir)
    if service.clock and not service.mock:
        # One clock hook per process: once it moved the environment's time, every later
        # assertion of the run, shared flows included, must be dated by the moved time. The
        # session's flows make it first (auth_clocked depends on auth_flows), so its client
        # lives as long as the run.
        if run.hook_clock is None:
            hook = service.clock
            run.hook_clock = HookClock(api, hook["url"], method=hook.get("method", "POST"),
                                       parameter=hook.get("parameter", "advance_s"),
                                       encoding=hook.get("encoding", "json"), ledger=ledger)
        clock = run.hook_clock
    elif private:
        clock = (MockClock(api, info["auth_url"]) if info.get("clock") == "mock"
                 else RealClock(run.countdown, run.wait_budget(), ledger=ledger, allowed=profile.safety.waits))
    targets = build_targets(service, info=info, secrets=secrets, clock=clock)
    classify = rules(targets) if rules is not None else None
    if classify is not None:
        api.classify_with(classify)
    flows = AuthFlows(targets, api, lambda: Browser(redactor, run.recorder, timeout_s=service.timeout_s, pacer=pacer,
                                                    limits=profile.limits.http(), trust=service.trust,
                                                    switches=switches, classify=classify))
    return flows, api
