"""Fixtures of the address suite beyond those of the plugin: the profile's OpenAPI
description as a schemathesis schema, and which operations of it a contract test covers."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.checks.address import contract_pass, fixtures, paging
from conformance.checks.address import general as g
from conformance.errors import NotApplicable, NotJudged
from conformance.http.fuzz_transport import BoundedForwarder, BoundedSession, send_explicit_examples_ahead
from conformance.openapi import operations as ops
from conformance.openapi.loader import load_schema

# The address API's fixtures, shared with the other suites that use it (conformance/checks/address/fixtures.py).
address_api = fixtures.address_api


@pytest.fixture(scope="session")
def fuzz_max_examples(conformance_state) -> int:
    """The run's example budget (--max-examples, else the profile's [fuzz] max_examples)."""
    return conformance_state.max_examples


@dataclass(frozen=True)
class RuleChecks:
    """The address exchange rules as schemathesis checks of the run's fuzzed answers
    (conformance/checks/address/st_checks.py), by severity."""

    must: list
    should: list


@pytest.fixture(scope="session")
def address_rules(profile) -> RuleChecks:
    from conformance.checks.address.st_checks import rule_checks
    from conformance.passive.rules import Context

    context = Context(profile)
    return RuleChecks(must=rule_checks("MUST", lambda: context), should=rule_checks("SHOULD", lambda: context))


@pytest.fixture(scope="session")
def auth_enforced_operations() -> set[str]:
    """The operations seen to refuse missing and wrong credentials this run (ignored_auth)."""
    return set()


@pytest.fixture(scope="session")
def address_schema(address_api, profile, conformance_state):
    schema = load_schema(profile.address, address_api.base_url)
    # Headers set here are sent on every generated call, the stateful ones included.
    schema.config.update(base_url=address_api.base_url, headers=address_api.auth_headers())
    _seeded(schema, conformance_state.seed)
    schema.config.phases.update(phases=conformance_state.fuzz_phases)  # --fuzz-phases, the profile's [fuzz] phases
    if not profile.safety.negative:  # no request designed to be refused: schemathesis's positive mode only
        from schemathesis import GenerationMode

        schema.config.generation.update(modes=[GenerationMode.POSITIVE])
    # Every request schemathesis makes goes through the harness's bounded, paced, recorded client.
    schema.app = BoundedForwarder(address_api.client)
    return schema


def _seeded(schema, seed: int) -> None:
    """The run's seed for every test generated from the description: schemathesis seeds each
    operation's test from it (`hypothesis.seed`, its own seed mixed with the operation's
    label), and the stateful test's machine carries it. Without it schemathesis draws a random
    seed of its own every run, and --seed, the profile's seed and the derived one would not
    reach them (README "Reports": the same profile against the same server fuzzes alike)."""
    schema.config.seed = seed
    make_machine = schema.as_state_machine

    def as_state_machine():
        machine = make_machine()
        machine._hypothesis_internal_use_seed = seed  # what @hypothesis.seed sets: run_state_machine_as_test reads it
        return machine

    schema.as_state_machine = as_state_machine


@pytest.fixture(autouse=True)
def _findings_replayed(request):
    """The environment's saved failing examples are replayed first (run_setup.FindingsDatabase):
    each fuzzing test keeps its own under a key of its name (`_hypothesis_internal_add_digest`,
    as Hypothesis's pytest plugin keys a parametrized test), the same in a checkout and an
    installed copy. Hypothesis uses no example database while a run-wide seed is forced
    (`--hypothesis-seed`, which the SOAP suite's generated tests are seeded by); these tests
    carry their own seed (_seeded), so for them the forced one is lifted while they run."""
    handle = getattr(getattr(request.node, "obj", None), "hypothesis", None)
    inner = getattr(handle, "inner_test", None)
    if inner is not None:
        inner._hypothesis_internal_add_digest = f"{request.node.path.stem}::{request.node.name}".encode()
    with _SEED_LIFT:
        yield


class _SeedLift:
    """Hypothesis's forced seed lifted while any of these tests runs (they run side by side
    in a worker against a slow service: conformance/side_by_side.py), and put back after the last."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._forced = None

    def __enter__(self) -> None:
        import hypothesis.core as hypothesis_core

        with self._lock:
            if not self._running:
                self._forced, hypothesis_core.global_force_seed = hypothesis_core.global_force_seed, None
            self._running += 1

    def __exit__(self, *exc: object) -> None:
        import hypothesis.core as hypothesis_core

        with self._lock:
            self._running -= 1
            if not self._running:
                hypothesis_core.global_force_seed = self._forced


_SEED_LIFT = _SeedLift()


@pytest.fixture(scope="session")
def address_seed_schema(address_api, profile, address_schema):
    """The description's seed view (conformance/openapi/seed_view.py) for judging contract
    fuzzing's findings, or None when the description marks nothing as public behaviour."""
    from conformance.openapi.seed_view import has_marks

    if not has_marks(address_schema.raw_schema):
        return None
    return load_schema(profile.address, address_api.base_url, seed_only=True)


@pytest.fixture(scope="session")
def fuzz_session(address_api, conformance_state):
    """The generated calls' way to the same bounded client (fuzz_transport.direct_call); against
    a real service (its latency measured) the explicit examples' answers are sent ahead."""
    ahead = "address" in conformance_state.latency_s and address_api.client.concurrency > 1
    if ahead:
        send_explicit_examples_ahead()
    with BoundedSession(address_api.client, base_url=address_api.base_url, headers=address_api.auth_headers,
                        ahead=ahead) as session:
        yield session


@pytest.fixture
def fuzz_can_send(request, address_api, conformance_state) -> None:
    """Every example a fuzzing test generates is a request: when the client would send none
    (the run's request budget spent, the run stopped, the address API's breaker tripped),
    the test is not judged or blocked before it starts, as its first request would have
    made it, instead of hypothesis generating and shrinking examples that cannot be sent.
    So is a test whose phases the run left out (--fuzz-phases): the stateful test (the one
    that follows the description's links) needs `stateful`, every other one `coverage` or
    `fuzzing` (the description's examples alone may have none for an operation: hypothesis
    would skip its test, and a MUST check is never "skipped")."""
    needs = ("stateful",) if "described_links" in request.fixturenames else ("coverage", "fuzzing")
    if not set(needs) & set(conformance_state.fuzz_phases):
        raise NotJudged("its fuzzing phases left out", f"the run's phases, {', '.join(conformance_state.fuzz_phases)} "
                        f"(--fuzz-phases or the profile's [fuzz] phases), have none of {', '.join(needs)}")
    address_api.client.refusing()


@pytest.fixture(scope="session")
def contract_ledger(conformance_state) -> contract_pass.Ledger:
    """The run's record of the groups judged clean on a contract pass (contract_pass.py)."""
    return contract_pass.Ledger(conformance_state.schedule_dir or None)


_PASS_BROKEN = pytest.StashKey[bool]()
_JUDGED_ON = pytest.StashKey[str]()


@pytest.fixture
def contract_pass_of(request, contract_ledger):
    """The contract test's pass, judged by the other groups its run selected (`groups`: check
    id -> checks); noted clean in the ledger at the end of a test nothing was raised in."""
    operation_id = request.node.get_closest_marker("seed_operation").args[0]
    selected = {mark.args[0] for item in request.session.items for mark in item.iter_markers("check")}
    made: list[contract_pass.ContractPass] = []

    def start(groups: dict[str, list]) -> contract_pass.ContractPass:
        """The test's pass, made at its first answer (the same groups for every answer)."""
        if not made:
            made.append(contract_pass.ContractPass(operation_id, {k: v for k, v in groups.items() if k in selected}))
        return made[0]

    with contract_ledger.running(operation_id):
        yield start
        if made and not request.node.stash.get(_PASS_BROKEN, False):
            contract_ledger.note_clean(operation_id, made[0].clean_groups())


@pytest.fixture
def judged_on_contract_pass(request, contract_ledger) -> None:
    """A group's test of an operation passes on the contract test's pass when the ledger has
    it clean (contract_pass.py); else its test fuzzes on its own."""
    check_id = request.node.get_closest_marker("check").args[0]
    operation_id = request.node.get_closest_marker("seed_operation").args[0]
    if contract_ledger.judged_clean(operation_id, check_id):
        request.node.stash[_JUDGED_ON] = f"address.contract.{operation_id}"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items) -> None:
    """The groups judged on a contract pass go after every other test (before the run orders
    its long tests over the workers, which keeps their order): by their turn the contract
    tests have ended, so they neither wait for one running elsewhere nor fuzz again beside it
    (a worker waiting there sent nothing: a paced run lost 2 points of its rate)."""
    later = [item for item in items if "judged_on_contract_pass" in getattr(item, "fixturenames", ())]
    if later:
        items[:] = [item for item in items if item not in later] + later


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Anything raised in a contract test or one of its subtests (schemathesis reports one
    per operation through this hook) breaks its pass: no group is noted clean on it."""
    report = yield
    if call.when == "call" and (call.excinfo is not None or report.failed):
        item.stash[_PASS_BROKEN] = True
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem) -> bool | None:
    """A group's test judged on the contract pass does not fuzz again."""
    return True if _JUDGED_ON in pyfuncitem.stash else None


@pytest.fixture
def described_operation(request, address_schema) -> None:
    """The operation (marker `seed_operation`), or the operations outside the seed, that a
    contract test fuzzes must be in the description: otherwise it does not apply."""
    described = [(m, p) for m, p in ops.described_operations(address_schema.raw_schema)]
    marker = request.node.get_closest_marker("seed_operation")
    if marker is not None:
        name = marker.args[0]
        if not any(ops.seed_operation(m, p) == name for m, p in described):
            raise NotApplicable(f"the description has no GET {ops.SEED_OPERATIONS[name]} (seed part 4, {name}) "
                                "under any operationId or parameter name")
    elif not any(ops.seed_operation(m, p) is None for m, p in described):
        raise NotApplicable("the description has no operations beyond the seed's")


@pytest.fixture
def described_links(address_schema) -> None:
    if not ops.has_links(address_schema.raw_schema):
        raise NotApplicable("the description declares no OpenAPI links: no chain of operations to follow")


@dataclass
class MockControls:
    cluster: Any

    def start_private(self, *, maintenance: bool = False) -> str:
        """An isolated address mock instance (same keys and data), stopped with the run."""
        return self.cluster.start_address(maintenance=maintenance)


@pytest.fixture(scope="session")
def address_mock(profile, run_context):
    """Control of the local mock (a private instance in maintenance, for instance): what a
    check needs of the mock reaches it here, never by importing the mocks."""
    if not profile.uses_mock:
        pytest.skip("needs control of the local mock")
    with run_context.mock_cluster() as cluster:
        yield MockControls(cluster)


@pytest.fixture(scope="session")
def paging_walks(address_api):
    """One walk of pages per paginated collection (conformance/checks/address/paging.py),
    made when a check first needs it and shared by the checks of what pages hold."""
    walks: dict[str, paging.Walk] = {}

    def walk_of(case: str) -> paging.Walk:
        if case not in walks:
            path, params = g.COLLECTIONS[case](address_api)
            walks[case] = paging.walk(address_api, path, params)
        return walks[case]

    return walk_of
