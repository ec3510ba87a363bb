"""Callers' encoder passes on threads of their own, a reader's (a recall, which an agent
waits on to go on) before a writer's (a save waiting for `indexed`, an update, an import's
batch).

Before, each pass waiting for a core held a thread of the event loop's default executor: a
burst of saves filled that executor's queue, and a recall's pass, its lane searches and its
record reads waited behind every save's pass (docs/benchmarks.md, "Recalls beside a burst
of saves"). Here passes wait in this queue, and a thread that ends a pass takes the next
one itself, without a round trip through the event loop (a busy loop would leave a core
idle between passes).

Readers go first, but not for ever: a writer waiting behind READERS_IN_A_ROW readers gets
the next turn, so a stream of recalls slows saves down without stopping them.

The threads may run at a higher nice value than the event loop's (Linux): on busy cores
the loop, which answers every caller, goes before a pass, which serves one.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from enum import Enum
from typing import TypeVar

from memhive_adapters.embedding.thread_priority import lower_this_thread

T = TypeVar("T")


class Caller(Enum):
    READER = "reader"
    WRITER = "writer"


READERS_IN_A_ROW = 4

Job = tuple[Future, Callable[[], object]]


class PassQueue:
    """`submit(caller, work)` runs `work()` on one of `workers` threads (started as needed,
    named `thread_name`-N, at nice `niceness`), in turn as the module says; the future it
    returns holds what `work` returned or raised. A future cancelled before its turn is
    skipped."""

    def __init__(self, workers: int, niceness: int = 0, thread_name: str = "memhive-pass") -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self._workers, self._niceness, self._thread_name = workers, niceness, thread_name
        self._lock = threading.Condition()
        self._waiting: dict[Caller, deque[Job]] = {c: deque() for c in Caller}
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._readers_in_a_row = 0

    def submit(self, caller: Caller, work: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            self._waiting[caller].append((future, work))
            if self._idle:
                self._lock.notify()
            elif len(self._threads) < self._workers:
                self._start_thread()
        return future

    def _start_thread(self) -> None:
        name = f"{self._thread_name}-{len(self._threads)}"
        thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _work(self) -> None:
        lower_this_thread(self._niceness)
        while True:
            future, work = self._next_job()
            if not future.set_running_or_notify_cancel():
                continue  # its caller is gone
            try:
                result = work()
            except BaseException as exc:  # the caller's to handle, as an executor's would
                future.set_exception(exc)
            else:
                future.set_result(result)
            del future, work  # not held while this thread waits

    def _next_job(self) -> Job:
        with self._lock:
            while (caller := self._next_caller()) is None:
                self._idle += 1
                self._lock.wait()
                self._idle -= 1
            self._readers_in_a_row = self._readers_in_a_row + 1 if caller is Caller.READER else 0
            return self._waiting[caller].popleft()

    def _next_caller(self) -> Caller | None:
        """A reader's job, unless a writer has waited behind READERS_IN_A_ROW readers."""
        readers, writers = self._waiting[Caller.READER], self._waiting[Caller.WRITER]
        if writers and (not readers or self._readers_in_a_row >= READERS_IN_A_ROW):
            return Caller.WRITER
        return Caller.READER if readers else None
