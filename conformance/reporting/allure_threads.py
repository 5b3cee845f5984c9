"""Allure with tests side by side in one process (conformance/side_by_side.py).

allure-commons keeps its open items -- test results, steps, fixtures, fixture containers --
per thread: a thread's latest is where an attachment, a step or a label goes, which is what
keeps each test's evidence its own when tests run in threads of their own. Two things of it
break then: a thread's first look copies the main thread's latest item and fails while the
main thread has none (StopIteration), and an item another thread opened -- a session
fixture's container, opened by the first test that needed the fixture -- is not found (the
next test's set-up then fails on it). `share_open_items` puts a variant in place in a
process's Allure listener: the latest is still the thread's own; any open item is found by
its uuid, whichever thread opened it.
"""

from __future__ import annotations

import threading
from typing import Any

from allure_commons.reporter import ThreadContextItems


class _SharedItems(ThreadContextItems):
    @property
    def thread_context(self) -> Any:
        context = self._thread_context[threading.current_thread()]
        if not context and threading.current_thread() is not self._init_thread:
            latest = next(reversed(self._thread_context[self._init_thread].items()), None)
            if latest is not None:  # as allure does: a thread of the main thread's test attaches to it
                context[latest[0]] = latest[1]
        return context

    def _holder(self, key: Any) -> Any:
        """The open items of the thread that opened `key`: this thread's first."""
        own = self.thread_context
        if key in own:
            return own
        return next((items for items in list(self._thread_context.values()) if key in items), own)

    def __getitem__(self, key: Any) -> Any:
        return self._holder(key)[key]

    def get(self, key: Any) -> Any:
        return self._holder(key).get(key)

    def pop(self, key: Any) -> Any:
        return self._holder(key).pop(key)


def share_open_items(config: Any) -> None:
    """Open items found by uuid across the threads of this process (see above)."""
    listener = config.pluginmanager.get_plugin("allure_listener")
    reporter = getattr(listener, "allure_logger", None)
    if reporter is not None and isinstance(getattr(reporter, "_items", None), ThreadContextItems):
        reporter._items = _SharedItems()  # the items themselves are the class's, kept as they are
