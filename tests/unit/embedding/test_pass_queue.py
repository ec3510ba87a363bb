"""The callers' pass queue: readers before writers, each kind in the order it came, a writer
never waiting behind more than READERS_IN_A_ROW readers, never more passes at once than its
threads."""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from concurrent.futures import Future, wait

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhive_adapters.embedding.pass_queue import READERS_IN_A_ROW, Caller, PassQueue

R, W = Caller.READER, Caller.WRITER
TIMEOUT_S = 10


class Recorded:
    """Jobs that note the order they ran in, behind a first job that holds the one thread
    until `release`: every job is queued before any of them runs."""

    def __init__(self, queue: PassQueue) -> None:
        self.queue, self.ran = queue, []
        self._gate, self._started = threading.Event(), threading.Event()
        self.first = queue.submit(W, self._held)
        assert self._started.wait(TIMEOUT_S)

    def _held(self) -> str:
        self._started.set()
        assert self._gate.wait(TIMEOUT_S)
        return "held"

    def submit(self, caller: Caller, name: str) -> Future:
        return self.queue.submit(caller, lambda: self.ran.append(name) or name)

    def release(self, futures: list[Future]) -> None:
        self._gate.set()
        done, pending = wait([self.first, *futures], timeout=TIMEOUT_S)
        assert not pending


def expected_order(callers: list[Caller]) -> list[int]:
    """The policy, written plainly: the next reader, unless a writer waits and
    READERS_IN_A_ROW readers ran since the last writer (the first job, which held the
    thread, was a writer)."""
    readers = deque(i for i, c in enumerate(callers) if c is R)
    writers = deque(i for i, c in enumerate(callers) if c is W)
    order, in_a_row = [], 0
    while readers or writers:
        if writers and (not readers or in_a_row >= READERS_IN_A_ROW):
            order.append(writers.popleft())
            in_a_row = 0
        else:
            order.append(readers.popleft())
            in_a_row += 1
    return order


def test_readers_go_before_the_writers_waiting() -> None:
    jobs = Recorded(PassQueue(1))
    futures = [
        jobs.submit(c, n) for c, n in [(W, "w1"), (W, "w2"), (R, "r1"), (W, "w3"), (R, "r2")]
    ]
    jobs.release(futures)
    assert jobs.ran == ["r1", "r2", "w1", "w2", "w3"]
    assert [f.result() for f in futures] == ["w1", "w2", "r1", "w3", "r2"]


def test_a_writer_waits_behind_a_bounded_number_of_readers() -> None:
    jobs = Recorded(PassQueue(1))
    readers = [f"r{n}" for n in range(READERS_IN_A_ROW + 2)]
    futures = [jobs.submit(W, "w1")] + [jobs.submit(R, name) for name in readers]
    jobs.release(futures)
    assert jobs.ran == [*readers[:READERS_IN_A_ROW], "w1", *readers[READERS_IN_A_ROW:]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([R, W]), max_size=30))
def test_any_queue_runs_in_the_policys_order(callers: list[Caller]) -> None:
    jobs = Recorded(PassQueue(1))
    futures = [jobs.submit(caller, n) for n, caller in enumerate(callers)]
    jobs.release(futures)
    assert jobs.ran == expected_order(callers)


def test_a_job_cancelled_before_its_turn_never_runs() -> None:
    jobs = Recorded(PassQueue(1))
    gone, kept = jobs.submit(R, "gone"), jobs.submit(W, "kept")
    assert gone.cancel()
    jobs.release([kept])
    assert jobs.ran == ["kept"]


def test_what_a_job_raises_is_its_futures_and_the_thread_goes_on() -> None:
    queue = PassQueue(1)

    def fails() -> None:
        raise ValueError("no pass")

    failed = queue.submit(W, fails)
    with pytest.raises(ValueError, match="no pass"):
        failed.result(TIMEOUT_S)
    assert queue.submit(R, lambda: "next").result(TIMEOUT_S) == "next"


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_never_more_jobs_at_once_than_threads(workers: int) -> None:
    queue, lock = PassQueue(workers), threading.Lock()
    running, most = 0, 0

    def job() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        threading.Event().wait(0.002)
        with lock:
            running -= 1

    futures = [queue.submit(R if n % 3 else W, job) for n in range(12 * workers)]
    done, pending = wait(futures, timeout=TIMEOUT_S)
    assert not pending and all(f.exception() is None for f in done)
    assert most <= workers


def test_the_threads_run_jobs_side_by_side() -> None:
    queue = PassQueue(2)
    meet = threading.Barrier(2, timeout=TIMEOUT_S)  # breaks if the two jobs take turns
    futures = [queue.submit(W, meet.wait), queue.submit(R, meet.wait)]
    done, pending = wait(futures, timeout=TIMEOUT_S)
    assert not pending and all(f.exception() is None for f in done)


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        PassQueue(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_threads_run_at_the_niceness_asked() -> None:
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    niceness = min(own + 5, 19)
    queue = PassQueue(1, niceness, thread_name="memhive-pass-nice-test")

    def priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    assert queue.submit(R, priority).result(TIMEOUT_S) == niceness
    assert priority() == own  # the caller's own thread untouched
