"""Searches started in the same turn of the event loop run in one worker thread, in turn.

qdrant-edge's `query` holds the GIL for the whole search (measured: a Python thread beside
it runs as beside pure Python, and the search returns in its own time rather than after
the interpreter's switch interval, as a call that let go of the GIL would). So searches in
threads of their own never overlap; each only pays for its hand-off: a submit to the
executor, a wake-up of the event loop and a future's callbacks. The link classifier starts
a pull batch's searches together (up to 64), and concurrent saves' near-duplicate checks
arrive together: one hand-off serves them all. A lone search is a batch of one, a loop turn
later than before.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

Query = Callable[[], Any]  # one search, bound to its shard and request


class QueryBatches:
    """Runs `Query` calls given in the same loop turn together, in one worker thread of
    `executor` (None: the event loop's default, as `asyncio.to_thread`)."""

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._waiting: list[tuple[Query, asyncio.Future]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, query: Query) -> asyncio.Future:
        """What `query()` returns (or raises), once its batch has run."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a batch left by a loop that stopped before running it
            self._waiting, self._loop = [], loop
        if not self._waiting:
            loop.call_soon(self._start, loop)
        future = loop.create_future()
        self._waiting.append((query, future))
        return future

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._waiting = self._waiting, []
        futures = [future for _, future in batch]
        try:
            done = loop.run_in_executor(self._executor, _run_each, [query for query, _ in batch])
        except Exception as error:  # an executor shut down: no waiter may hang
            _deliver(futures, [error] * len(futures))
            return
        done.add_done_callback(functools.partial(_delivered, futures))


def _run_each(queries: Sequence[Query]) -> list[Any]:
    """Each query's result or the exception it raised, in order: one failure fails only its
    own search."""
    outcomes: list[Any] = []
    for query in queries:
        try:
            outcomes.append(query())
        except Exception as error:
            outcomes.append(error)
    return outcomes


def _delivered(futures: Sequence[asyncio.Future], done: asyncio.Future) -> None:
    """The batch's outcomes to its callers; an executor that cancelled the batch (a shutdown
    with `cancel_futures`) cancels them."""
    if done.cancelled():
        for future in futures:
            future.cancel()
    elif (error := done.exception()) is not None:
        _deliver(futures, [error] * len(futures))
    else:
        _deliver(futures, done.result())


def _deliver(futures: Sequence[asyncio.Future], outcomes: Sequence[Any]) -> None:
    for future, outcome in zip(futures, outcomes, strict=True):
        if future.done():  # its caller was cancelled meanwhile
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
