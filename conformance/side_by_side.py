"""Tests side by side in one worker: how a run keeps a slow service busy with no more
processes than cores.

Against a deployment that answers in 200 ms, a test that sends three requests in a row
waits 0.6 s, and a worker that runs its tests one after another sends five requests a
second. Runs used to start more workers instead (up to 12 on two cores, each a process with
the suites loaded: 40 s before the first test). Now each worker runs up to `lanes` tests at
once (conformance/http/concurrency.py), each in a thread of its own; every request of every
test is held to the service's bound and rate as before (`Slots`, the shared schedule).

Only a test's function runs beside other tests. What pytest does around it -- fixtures,
hooks, reports, evidence -- is done for one test at a time: a test holds the worker's turn
for all of it, and gives the turn up while its function runs and while it waits for another
test's work (`concurrency.waiting`). Nothing of a test's outcome passes through another's,
so its verdict is the one it gets alone.

Which tests: those the conformance plugin's `may` allows (`independent`: checks of the
address API that send valid, refused, fuzz or flood requests; a test keeps the order of its
own requests). A test that needs order between tests -- token flows, replay, waits, the
local mock's controls, the tests that judge what the others sent -- starts once every test
in flight has ended, and runs alone, as before.

What pytest keeps for the current test is kept per test:
  * its entry on pytest's stack of set-up nodes (`_Stack`): on the stack only while the test
    holds the turn; its module's (and the session's) are shared, and torn down once no test in
    flight needs them;
  * its function-scoped fixtures: each test gets its own copy of their definitions
    (`own_function_fixtures`), pytest caching a fixture's value on its definition;
  * its recorded exchanges (client.record_apart) and its Allure items (Allure keeps them per
    thread: conformance/reporting/allure_threads.py).
pytest's SetupState, fixture definitions and hook relay are internals (the lock pins pytest
8.4.2); tests/test_side_by_side.py runs tests side by side against a slow server and checks
each of these.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from _pytest.outcomes import TEST_OUTCOME
from _pytest.runner import SetupState

from conformance.http import concurrency
from conformance.http.client import record_apart
from conformance.reporting.allure_threads import share_open_items

# What a test may send to run beside others: requests no other test's outcome depends on. A
# flood keeps its order in its own thread, and always ran beside the other workers' tests;
# real-time waits (the token flows' lifetimes) and what judges the others' requests: alone.
INDEPENDENT_SENDS = frozenset({"valid", "refused", "fuzz", "flood"})


def independent(check_id: str | None, sends: tuple[str, ...], item: pytest.Item) -> bool:
    """Whether a test keeps to requests of its own: an address API check sending only
    INDEPENDENT_SENDS, without the local mock's controls (the auth suite's flows share tokens
    and clocks between tests: alone)."""
    return bool(check_id and check_id.startswith("address.") and sends and INDEPENDENT_SENDS.issuperset(sends)
                and item.get_closest_marker("mock_only") is None)


def lanes_of(state: Any) -> int:
    """The tests a process of the run runs side by side: against a real address API (its
    latency measured), as many as may be in flight to it (concurrency.lanes); else 1."""
    if "address" not in state.latency_s or state.traffic:
        return 1
    return concurrency.lanes(state.in_flight.get("address", 1))


def install(config: pytest.Config, state: Any, declared: Callable[[pytest.Item], tuple[Any, Any]]) -> None:
    """This process runs its independent tests side by side (`lanes_of`). `declared`: a
    test's check id and what it sends (the conformance plugin's)."""
    lanes = lanes_of(state)
    if lanes > 1:
        may = lambda item: independent(*declared(item), item)  # noqa: E731
        config.pluginmanager.register(SideBySide(lanes, may), "conformance-side-by-side")


class SideBySide:
    """One process's plugin object: runs up to `lanes` tests at once."""

    def __init__(self, lanes: int, may: Callable[[pytest.Item], bool]) -> None:
        self.lanes = lanes
        self._may = may
        self._turn = threading.Lock()
        self._lane = threading.local()  # a lane's test, its detached stack entry, whether it holds the turn
        self._free = threading.Semaphore(lanes)
        self._in_flight: list[Future[None]] = []
        self._using: dict[Any, int] = {}  # a set-up node -> the tests in flight under it
        self._wanted: set[Any] = set()  # the nodes the latest test started, and the test after it, are under
        self._pool: ThreadPoolExecutor | None = None
        self._stack: _Stack | None = None
        self._protocol: Any = None
        self._item_index: _ItemIndex | None = None

    # ------------------------------------------------------------------ collection
    @pytest.hookimpl(trylast=True)  # after the conformance plugin has read what each test sends
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if self._may(item):
                own_function_fixtures(item)

    # ------------------------------------------------------------------ the loop
    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        hook = session.config.hook
        self._protocol = hook.pytest_runtest_protocol
        self._stack = session._setupstate = _Stack(self, session._setupstate.stack)  # type: ignore[attr-defined]
        self._pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="conformance-lane")
        # Both loops (pytest's, xdist's worker) hand each test to the hook relay's protocol.
        hook.pytest_runtest_protocol = _Dispatch(self, self._protocol)
        concurrency.on_wait(self._given_up)
        share_open_items(session.config)
        self._item_index = _xdist_item_index(session)
        try:
            with _one_parse_at_a_time():
                try:
                    return (yield)
                finally:  # the loop has handed out its last test: the lanes end theirs
                    self.drain()
        finally:
            concurrency.on_wait(None)
            hook.pytest_runtest_protocol = self._protocol
            self._pool.shutdown()

    def dispatch(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        """Start `item` in a lane, or, a test that runs alone, once the lanes are empty."""
        self._raise_from_lanes()
        if not self._may(item):
            self.drain()
            return self._protocol(item=item, nextitem=nextitem)
        self._free.acquire()  # a free lane
        with self._turn:
            for node in _parents(item):
                self._using[node] = self._using.get(node, 0) + 1
            self._wanted = {*_parents(item), *(_parents(nextitem) if nextitem is not None else ())}
        assert self._pool is not None
        self._in_flight.append(self._pool.submit(self._run, item, nextitem))
        return True

    def drain(self) -> None:
        """Wait for every test in flight to end."""
        in_flight, self._in_flight = self._in_flight, []
        for future in in_flight:
            future.result()  # a lane's own error (never a test's: its report has that)

    def needed(self, node: Any) -> bool:
        """Whether a test in flight, the latest started or the next is under `node`."""
        return bool(self._using.get(node)) or node in self._wanted

    def ended(self, item: pytest.Item) -> None:
        for node in _parents(item):
            self._using[node] -= 1

    def _raise_from_lanes(self) -> None:
        for future in [f for f in self._in_flight if f.done()]:
            future.result()
            self._in_flight.remove(future)

    def _run(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        lane = self._lane
        lane.item, lane.entry, lane.holding = item, None, False
        record_apart()
        if self._item_index is not None:
            self._item_index.of_this_lane(item)
        try:
            self._take()
            try:
                self._protocol(item=item, nextitem=nextitem)
            finally:
                self._give()
        finally:
            lane.item = None
            self._free.release()

    # ------------------------------------------------------------------ the turn
    def current(self) -> Any:
        """The lane of this thread while it runs a test, else None (the main thread)."""
        return self._lane if getattr(self._lane, "item", None) is not None else None

    def _take(self) -> None:
        self._turn.acquire()
        lane = self._lane
        lane.holding = True
        if lane.entry is not None:
            assert self._stack is not None
            self._stack.stack[lane.item] = lane.entry
            lane.entry = None

    def _give(self) -> None:
        lane = self._lane
        assert self._stack is not None
        if lane.item in self._stack.stack:  # the test's own entry leaves with its turn
            lane.entry = self._stack.stack.pop(lane.item)
        lane.holding = False
        self._turn.release()

    @contextmanager
    def _given_up(self) -> Iterator[None]:
        """The turn given up for the block, when this thread is a lane that holds it."""
        lane = self.current()
        if lane is None or not lane.holding:
            yield
            return
        self._give()
        try:
            yield
        finally:
            self._take()

    def _taken(self) -> Any:
        """The turn taken for the block, when this thread is a lane whose test's function
        runs (schemathesis reports each operation's subtest from there)."""
        lane = self.current()
        if lane is None or lane.holding:
            return nullcontext()
        return self._turn_for_block()

    @contextmanager
    def _turn_for_block(self) -> Iterator[None]:
        self._take()
        try:
            yield
        finally:
            self._give()

    # ------------------------------------------------------------------ hooks around the function
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        with self._given_up():
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        with self._taken():
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: Any) -> Any:
        with self._taken():
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> Any:
        with self._taken():
            return (yield)


class _Dispatch:
    """The hook relay's `pytest_runtest_protocol` while the loop runs: the runner's dispatch,
    the hook caller's own attributes otherwise."""

    def __init__(self, runner: SideBySide, caller: Any) -> None:
        self._runner = runner
        self._caller = caller

    def __call__(self, *, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        return self._runner.dispatch(item, nextitem)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._caller, name)


class _Stack(SetupState):
    """pytest's stack of set-up nodes with tests side by side. pytest tears down what the next
    test does not need; here a node stays while a test in flight needs it, and goes at the end
    of a test (or before the set-up of one) once no test in flight, the latest started nor the
    one after it needs it. A lane's teardown takes its own test's entry off first; the main
    thread's, with no test in flight, is pytest's."""

    def __init__(self, runner: SideBySide, stack: dict[Any, Any]) -> None:
        super().__init__()
        self.stack = stack
        self._runner = runner

    def setup(self, item: pytest.Item) -> None:
        needed = item.listchain()
        errors = self._tear_down([node for node in self.stack if node not in needed and not self._runner.needed(node)])
        _raise(errors)
        for node in needed:
            if node in self.stack:
                failed = self.stack[node][1]
                if failed:  # a collector that failed its set-up fails its tests, as in pytest
                    raise failed[0].with_traceback(failed[1])
                continue
            self.stack[node] = ([node.teardown], None)
            try:
                node.setup()
            except TEST_OUTCOME as exc:
                self.stack[node] = (self.stack[node][0], (exc, exc.__traceback__))
                raise

    def teardown_exact(self, nextitem: pytest.Item | None) -> None:
        lane = self._runner.current()
        if lane is None:
            return super().teardown_exact(nextitem)
        errors = self._tear_down([lane.item] if lane.item in self.stack else [])
        self._runner.ended(lane.item)
        errors += self._tear_down([node for node in _parents(lane.item)
                                   if node in self.stack and not self._runner.needed(node)])
        _raise(errors)
        return None

    def _tear_down(self, nodes: list[Any]) -> list[BaseException]:
        """Tear `nodes` down, the latest set up first, as pytest does: their errors."""
        errors: list[BaseException] = []
        for node in sorted(nodes, key=list(self.stack).index, reverse=True):
            finalizers, _ = self.stack.pop(node)
            errors += _finalized(node, finalizers)
        return errors


class _ItemIndex:
    """xdist's worker reports each test with the index of the one it runs (`item_index`, which
    it checks against the report): side by side, each lane's own test's."""

    def __init__(self, items: list[pytest.Item], current: Any) -> None:
        self._index = {id(item): i for i, item in enumerate(items)}
        self._main = current
        self._lane = threading.local()

    def of_this_lane(self, item: pytest.Item) -> None:
        self._lane.value = self._index[id(item)]

    def __get__(self, worker: Any, owner: Any = None) -> Any:
        return getattr(self._lane, "value", self._main)

    def __set__(self, worker: Any, value: Any) -> None:
        self._main = value  # xdist's loop, on its own thread


def _xdist_item_index(session: pytest.Session) -> _ItemIndex | None:
    """In an xdist worker, its `item_index` made per lane; None elsewhere."""
    worker = next((plugin for plugin in session.config.pluginmanager.get_plugins()
                   if type(plugin).__name__ == "WorkerInteractor"), None)
    if worker is None:
        return None
    index = _ItemIndex(session.items, getattr(worker, "item_index", None))
    worker.__class__ = type("WorkerInteractorSideBySide", (type(worker),), {"item_index": index})
    return index


def _raise(errors: list[BaseException]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise BaseExceptionGroup("errors during test teardown", errors[::-1])


def _finalized(node: Any, finalizers: list[Callable[[], object]]) -> list[BaseException]:
    """Run a node's finalizers, last first, as pytest does: the errors, grouped when several."""
    errors: list[BaseException] = []
    while finalizers:
        try:
            finalizers.pop()()
        except TEST_OUTCOME as exc:
            errors.append(exc)
    if len(errors) > 1:
        return [BaseExceptionGroup(f"errors while tearing down {node!r}", errors[::-1])]
    return errors


@contextmanager
def _one_parse_at_a_time() -> Iterator[None]:
    """`ast.parse` in one thread at a time: CPython 3.11 keeps one depth count for the
    interpreter while it builds a parse tree's objects, and two threads building at once make
    it raise SystemError "AST constructor recursion depth mismatch" (cpython gh-106905).
    Hypothesis parses sources to describe its strategies, in every test that fuzzes."""
    import ast

    parse, lock = ast.parse, threading.Lock()

    def parse_alone(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return parse(*args, **kwargs)

    ast.parse = parse_alone
    try:
        yield
    finally:
        ast.parse = parse


def _parents(item: pytest.Item) -> tuple[Any, ...]:
    return tuple(item.listchain()[:-1])


def own_function_fixtures(item: pytest.Item) -> None:
    """Give `item` its own copies of the definitions of its function-scoped fixtures: pytest
    caches a fixture's value (and its finalizers) on its definition, which every test of the
    fixture shares; side by side, one test would get another's value."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return
    own = {name: tuple(_own(definition) for definition in definitions)
           for name, definitions in info.name2fixturedefs.items()}
    item._fixtureinfo = dataclasses.replace(info, name2fixturedefs=own)  # type: ignore[attr-defined]
    item._initrequest()  # type: ignore[attr-defined]  # the request reads the definitions when made


def _own(definition: Any) -> Any:
    if definition.scope != "function":
        return definition
    own = copy.copy(definition)
    own.cached_result = None
    own._finalizers = []
    return own
