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
from dataclasses import dataclass
from typing import Any

import qdrant_edge as qe

Query = Callable[[], Any]  # one search, bound to its shard and request


@dataclass(frozen=True, slots=True)
class ShardQuery:
    """One search of one qdrant-edge shard: batched with the others of the same shard."""

    shard: qe.EdgeShard
    request: qe.QueryRequest

    def __call__(self) -> Any:
        return self.shard.query(self.request)


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
    own search. A shard's searches run as one batch; if the batch fails, each runs alone."""
    outcomes: list[Any] = [None] * len(queries)
    by_shard: dict[int, list[int]] = {}
    for position, query in enumerate(queries):
        if isinstance(query, ShardQuery):
            by_shard.setdefault(id(query.shard), []).append(position)
        else:
            outcomes[position] = _outcome(query)
    for positions in by_shard.values():
        together = [queries[p] for p in positions]
        for position, outcome in zip(positions, _batched(together), strict=True):
            outcomes[position] = outcome
    return outcomes


def _batched(queries: Sequence[ShardQuery]) -> list[Any]:
    if len(queries) > 1:
        batch = qe.QueryBatchRequest([q.request for q in queries])
        try:
            return list(queries[0].shard.query_batch(batch))
        except Exception:  # a bad search among them: each alone, so it fails only itself
            pass
    return [_outcome(q) for q in queries]


def _outcome(query: Query) -> Any:
    try:
        return query()
    except Exception as error:
        return error


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
