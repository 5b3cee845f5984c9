"""Rate limit and daily quota (seed parts 4, 7 and 8; bag-api.md 6).

The `limited` key has a small rate limit, the `quota` key a small daily quota; requests are
sent until the server answers 429, within a bound derived from the limit it announces. The
quota key may have a rate window of its own that trips first: that 429 is told from the
quota's by its headers and waited out (conformance/checks/address/quota.py).
"""

from __future__ import annotations

from conformance.auth.flows import RealClock
from conformance.checks.address import general as g
from conformance.checks.address import headers, problem, quota
from conformance.checks.address.control import Req, control_served
from conformance.checks.registry import MUST, OBSERVATION, check
from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Finding
from conformance.http.exchange import decimal_integer

MIN_BOUND, MAX_BOUND = 50, 200


def _a_429(address_api):
    """The first 429 for the `limited` key. Skips when the limit could not be exceeded
    because a new rate window began (pacing on a real environment)."""
    path = f"/adressen/{address_api.sample('nummeraanduiding')}"
    control_served(address_api, Req.of(path))  # the request itself is served (valid key)

    def send():
        return address_api.get(path, key="limited")

    first = send()
    if first.status == 429:
        return first
    limit = decimal_integer(g.header(first, "RateLimit-Limit"))
    bound = min(max(MIN_BOUND, limit + 5 if limit is not None else 0), MAX_BOUND)
    sent = [first, *g.until(send, lambda ex: ex.status == 429, bound - 1)]
    if sent[-1].status == 429:
        return sent[-1]
    if g.window_reset_seen(sent):
        raise NotJudged("the rate limit could not be exceeded at this pace",
                        f"no 429 within {len(sent)} requests, but a new rate window began: name a "
                        "limited_api_key with a lower limit (services.address.secrets)")
    raise Finding(f"no 429 after {len(sent)} requests with the limited key",
                  expected=f"429 after RateLimit-Limit ({limit}) requests", actual=sent[-1].summary())


@check("address.ratelimit.limit_exceeded_429", MUST, "Exceeding the rate limit is answered 429",
       requirements=["ADDR-7.429", "ADDR-4.rate-limit"],
       proven_by=["address.rate_limit_not_enforced"],
       sends=["flood"],
       feature="part 4, 7, 8 / rate limit and quota")
def test_limit_exceeded_429(address_api):
    g.expect_status(_a_429(address_api), 429)


@check("address.ratelimit.problem_body_429", MUST, "A 429 is problem+json (ExtendedProblemDetails) with the problem members and code tooManyRequests",
       requirements=["ADDR-7.429", "ADDR-2.error"],
       proven_by=["address.wrong_error_code", "address.problem_as_plain_json", "address.problem_status_mismatch"],
       may_fail_under=["address.rate_limit_not_enforced"],
       sends=["flood"],
       observes="exchange",
       feature="part 4, 7, 8 / rate limit and quota")
def test_problem_body_429(address_api):
    ex = _a_429(address_api)
    problem.is_problem_media_type(ex)
    problem.has_problem_members(ex)
    problem.has_problem_code(ex, "tooManyRequests")


@check("address.ratelimit.headers_on_429", MUST, "A 429 carries the six rate-limit headers as integers",
       requirements=["ADDR-4.rate-limit"],
       proven_by=["address.rate_limit_headers_missing_on_429"],
       may_fail_under=["address.rate_limit_not_enforced"],
       sends=["flood"],
       observes="exchange",
       feature="part 4, 7, 8 / rate limit and quota")
def test_headers_on_429(address_api):
    headers.has_rate_limit_headers(_a_429(address_api), address_api.header)


@check("address.ratelimit.api_version_on_429", OBSERVATION, "Whether a 429 carries api-version (the seed exempts 429)",
       requirements=["ADDR-4.api-version"],
       sends=["flood"],
       feature="part 4, 7, 8 / rate limit and quota",
       downgrade_reason="the row 'api-version | every response except 429' exempts 429: whether a 429 carries the header is left open")
def test_api_version_on_429(address_api, observe):
    try:
        ex = _a_429(address_api)
    except Finding as finding:  # measured elsewhere (limit_exceeded_429); nothing to observe
        raise NotApplicable(f"no 429 to look at: {finding.message}") from None
    value = g.header(ex, "api-version")
    observe({"present": value is not None, "value": value})


@check("address.ratelimit.day_quota_exceeded", MUST, "Exhausting the daily quota is answered 429 with DayLimit-Remaining 0 (a rate window's 429 on the way is waited out)",
       requirements=["ADDR-8.quota", "ADDR-7.429"],
       proven_by=["address.day_quota_not_enforced"],
       may_fail_under=["address.rate_limit_headers_missing_on_429"],
       sends=["flood"],
       feature="part 4, 7, 8 / rate limit and quota")
def test_day_quota_exceeded(address_api, run_context):
    path = f"/adressen/{address_api.sample('nummeraanduiding')}"
    control_served(address_api, Req.of(path))  # the request itself is served (valid key)

    def send():
        return address_api.get(path, key="quota")

    first = send()
    remaining = g.header(first, address_api.header("Registry-RateLimit-DayLimit-Remaining"))
    left = decimal_integer(remaining)
    if first.status != 429 and left is not None and left > MAX_BOUND:
        raise NotJudged("no quota key with a small daily quota",
                        f"the quota key has {remaining} requests left today, too many to exhaust: name one "
                        "with a smaller quota (services.address.secrets.quota_api_key)")
    bound = (left if left is not None else MIN_BOUND) + 5
    # The first answer is the walk's first; a window's 429 is waited out in real time, within
    # the run's wait budget (safety.max_wait_s): the window's length is the deployment's.
    pending = [first]

    def next_answer():
        return pending.pop() if pending else send()

    clock = RealClock(progress=run_context.countdown, budget=run_context.wait_budget())
    ex = quota.exhaust_day_quota(next_answer, clock.advance, bound=bound, name=address_api.header)
    g.day_quota_exhausted(ex, address_api.header)
