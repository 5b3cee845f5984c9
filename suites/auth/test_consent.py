"""Consent once per client and scope (seed 001 part 1: "grants consent once for the scopes
requested by the client"; part 5 item 2: "gives consent once per client and scope").

The check judges only what it saw: a consent page for the client in this run (on the first
authorization here, or on an earlier one of the run), then none on the next authorization.
A login driver that never sees a consent page (immediate, manual) cannot show that consent
is remembered, so the check does not apply; nor does it when no consent page was seen at all
(a real server keeps consent given in an earlier run: revoke it to judge this rule). On the
local mock it runs on a private server that has seen no authorization before it.
"""

from __future__ import annotations

from conformance.auth.flows import FILING_SCOPE
from conformance.auth.login import FormLoginDriver
from conformance.checks.registry import MUST, check
from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Finding


@check("auth.code.consent_remembered", MUST, "Consent is asked once per client and scope: a second authorization needs no consent form",
       requirements=["AUTH-5.2"],
       proven_by=["auth.consent_not_remembered"],
       feature="part 2 / authorization code + PKCE")
def test_consent_remembered(auth_fresh, auth_flows, profile):
    flows = auth_fresh if profile.auth.mock else auth_flows  # elsewhere: the run's earlier authorizations count
    driver = flows.targets.drivers.get("default")
    if driver is not None and not isinstance(driver, FormLoginDriver):
        raise NotApplicable(f"the {type(driver).__name__} login driver sees no consent page")
    first = flows.authorize_for_code()
    if "confidential" not in flows.consent_seen:
        raise NotJudged("no consent page seen for the confidential client",
                        "consent given before the run? Revoke it to judge this rule (pages: "
                        + " -> ".join(first.result.pages) + ")")
    second = flows.authorize_for_code()
    if second.result.consent_shown:
        raise Finding("consent was asked again for the same client and scope",
                      expected="no consent form", actual=" -> ".join(second.result.pages))


@check("auth.code.consent_asked_for_new_scope", MUST, "Consent is asked again when the client asks for a scope the user has not consented to",
       requirements=["AUTH-5.2", "AUTH-1.consent"],
       proven_by=["auth.consent_per_client_only"],
       feature="part 2 / authorization code + PKCE")
def test_consent_asked_for_new_scope(auth_fresh, auth_flows, profile):
    """Consent given for the filing scope does not cover another scope of the same client: an
    authorization that adds one the user has not consented to shows the consent form again.
    Judged only where consent was seen in this run (consents were fresh: revoke the client's
    consents before the run on a real server), as consent_remembered is."""
    flows = auth_fresh if profile.auth.mock else auth_flows
    driver = flows.targets.drivers.get("default")
    if driver is not None and not isinstance(driver, FormLoginDriver):
        raise NotApplicable(f"the {type(driver).__name__} login driver sees no consent page")
    extra = flows.targets.consent_scope
    if not extra:
        raise NotJudged("no second scope of the confidential client",
                        "name one the client may ask for in services.auth.consent_scope")
    first = flows.authorize_for_code()
    if "confidential" not in flows.consent_seen:
        raise NotJudged("no consent page seen for the confidential client",
                        "consent given before the run? Revoke it to judge this rule (pages: "
                        + " -> ".join(first.result.pages) + ")")
    widened = flows.authorize_for_code(scope=f"{FILING_SCOPE} {extra}")
    if not widened.result.consent_shown:
        raise Finding(f"no consent was asked for the new scope {extra} (consent given for {FILING_SCOPE} only)",
                      expected="a consent form", actual=" -> ".join(widened.result.pages))
