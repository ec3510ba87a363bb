"""Searches started together run in one worker thread (query_batches.py), a shard's as one
`query_batch`: each caller gets its own result or its own failure, and no caller is left
waiting."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import qdrant_edge as qe
from memhive_adapters.vector.query_batches import QueryBatches, ShardQuery


class CountingExecutor(ThreadPoolExecutor):
    def __init__(self) -> None:
        super().__init__(max_workers=4)
        self.submits = 0

    def submit(self, fn, /, *args, **kwargs):
        self.submits += 1
        return super().submit(fn, *args, **kwargs)


def answering(value):
    def query():
        return value, threading.get_ident()

    return query


async def test_searches_started_together_take_one_hand_off_and_keep_their_own_results():
    with CountingExecutor() as executor:
        batches = QueryBatches(executor)
        answers = await asyncio.gather(*(batches.run(answering(n)) for n in range(10)))
    assert [value for value, _ in answers] == list(range(10))
    assert executor.submits == 1
    threads = {thread for _, thread in answers}
    assert len(threads) == 1 and threading.get_ident() not in threads


async def test_searches_in_later_turns_are_batches_of_their_own():
    with CountingExecutor() as executor:
        batches = QueryBatches(executor)
        first = await batches.run(answering("a"))
        second = await batches.run(answering("b"))
    assert (first[0], second[0]) == ("a", "b")
    assert executor.submits == 2


async def test_a_failing_search_fails_only_its_own_caller():
    def failing():
        raise ValueError("bad filter")

    batches = QueryBatches()
    outcomes = await asyncio.gather(
        batches.run(answering(1)),
        batches.run(failing),
        batches.run(answering(3)),
        return_exceptions=True,
    )
    assert outcomes[0][0] == 1 and outcomes[2][0] == 3
    assert isinstance(outcomes[1], ValueError)


async def test_a_cancelled_caller_leaves_the_others_answered():
    release = threading.Event()

    def slow():
        release.wait(5)
        return "slow"

    batches = QueryBatches()
    cancelled = asyncio.ensure_future(batches.run(slow))
    kept = asyncio.ensure_future(batches.run(answering("kept")))
    await asyncio.sleep(0.01)
    cancelled.cancel()
    release.set()
    assert (await asyncio.wait_for(kept, 5))[0] == "kept"
    assert cancelled.cancelled()


async def test_an_executor_that_takes_no_more_work_fails_every_caller_at_once():
    executor = ThreadPoolExecutor(max_workers=1)
    executor.shutdown()
    batches = QueryBatches(executor)
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(batches.run(answering(1)), 2)


def test_a_batch_left_by_a_stopped_loop_does_not_hold_up_the_next_loop():
    batches = QueryBatches()

    stopped = asyncio.new_event_loop()

    def search_then_stop() -> None:
        batches.run(answering("lost"))  # its batch is due on the next turn, which never comes
        stopped.stop()

    stopped.call_soon(search_then_stop)
    stopped.run_forever()
    stopped.close()

    async def next_search():
        return await asyncio.wait_for(batches.run(answering("answered")), 2)

    assert asyncio.run(next_search())[0] == "answered"


async def test_a_batch_the_executor_cancels_at_shutdown_cancels_its_callers():
    release = threading.Event()
    executor = ThreadPoolExecutor(max_workers=1)
    busy = executor.submit(release.wait, 5)  # the only worker taken: the batch waits queued
    batches = QueryBatches(executor)
    waiting = asyncio.ensure_future(batches.run(answering(1)))
    await asyncio.sleep(0.01)  # the batch handed to the executor
    executor.shutdown(wait=False, cancel_futures=True)
    release.set()
    busy.result(5)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(waiting, 2)


class RecordingShard:
    """A shard that answers each request with its limit, and says how it was asked."""

    def __init__(self, refuse: int | None = None) -> None:
        self.calls: list[tuple[str, int]] = []
        self.refuse = refuse  # the limit of a request this shard fails on

    def query(self, request: qe.QueryRequest) -> list[int]:
        self.calls.append(("query", 1))
        if request.limit == self.refuse:
            raise ValueError("bad request")
        return [request.limit]

    def query_batch(self, batch: qe.QueryBatchRequest) -> list[list[int]]:
        self.calls.append(("query_batch", len(batch.queries)))
        if any(request.limit == self.refuse for request in batch.queries):
            raise ValueError("bad request in the batch")
        return [[request.limit] for request in batch.queries]


def asking(limit: int) -> qe.QueryRequest:
    return qe.QueryRequest(limit=limit, query=qe.Query.Nearest([1.0, 0.0]))


async def test_a_shards_searches_in_one_batch_go_to_it_as_one_query_batch_in_order():
    one, other = RecordingShard(), RecordingShard()
    batches = QueryBatches()
    answers = await asyncio.gather(
        batches.run(ShardQuery(one, asking(1))),
        batches.run(ShardQuery(other, asking(2))),
        batches.run(answering("plain")),
        batches.run(ShardQuery(one, asking(3))),
        batches.run(ShardQuery(one, asking(4))),
    )
    assert answers[0] == [1] and answers[1] == [2] and answers[3:] == [[3], [4]]
    assert answers[2][0] == "plain"
    assert one.calls == [("query_batch", 3)] and other.calls == [("query", 1)]


async def test_a_bad_search_in_a_shards_batch_fails_only_itself():
    shard = RecordingShard(refuse=2)
    batches = QueryBatches()
    outcomes = await asyncio.gather(
        *(batches.run(ShardQuery(shard, asking(n))) for n in (1, 2, 3)),
        return_exceptions=True,
    )
    assert outcomes[0] == [1] and outcomes[2] == [3]
    assert isinstance(outcomes[1], ValueError)
    assert shard.calls == [("query_batch", 3), ("query", 1), ("query", 1), ("query", 1)]
