"""GroupCommits: one commit per group of writes (full, or its oldest write old enough), in
order; durable() completes only once the writes queued before it are committed; a failed
commit keeps its writes for the next try and fails their waiters; close() commits the rest
without cutting into a commit under way."""

from __future__ import annotations

import asyncio
import threading

import pytest
from memhive_adapters.lexical.group_commit import GroupCommits

from tests.waiting import until


class Recorder:
    """The commit function: records each group; `fail` fails the next ones; `gate` holds
    a commit in its thread until set."""

    def __init__(self) -> None:
        self.groups: list[list[str]] = []
        self.settled: list[int] = []
        self.fail = 0
        self.gate = threading.Event()
        self.gate.set()

    def commit(self, writes) -> None:
        self.gate.wait(5)
        if self.fail:
            self.fail -= 1
            raise OSError("disk full")
        self.groups.append(list(writes))

    def commits(self, *, interval_s: float = 60, max_writes: int = 100) -> GroupCommits[str]:
        return GroupCommits(
            self.commit, self.settled.append, interval_s=interval_s, max_writes=max_writes
        )


async def test_a_full_group_is_committed_at_once_in_order() -> None:
    recorder = Recorder()
    commits = recorder.commits(max_writes=3)

    for n, write in enumerate(["a", "b", "c"], start=1):
        commits.add(n, write)
    await until(lambda: recorder.groups)

    assert recorder.groups == [["a", "b", "c"]]
    assert recorder.settled == [3]
    await commits.close()


async def test_a_group_is_committed_once_its_oldest_write_is_old_enough() -> None:
    recorder = Recorder()
    commits = recorder.commits(interval_s=0.05)
    loop = asyncio.get_running_loop()
    began = loop.time()

    commits.add(1, "a")
    await asyncio.sleep(0.01)
    commits.add(2, "b")
    await commits.durable()

    assert recorder.groups == [["a", "b"]]  # one commit for both
    assert loop.time() - began >= 0.05
    await commits.close()


async def test_durable_waits_for_what_was_queued_before_it_only() -> None:
    recorder = Recorder()
    commits = recorder.commits(interval_s=0.05)
    assert commits.durable().done()  # nothing queued: nothing to wait for

    commits.add(1, "a")
    first = commits.durable()
    assert not first.done()
    await first
    commits.add(2, "b")
    second = commits.durable()

    assert first.done() and not second.done()
    await second
    assert recorder.groups == [["a"], ["b"]]
    await commits.close()


async def test_a_failed_commit_fails_its_waiters_and_is_tried_again() -> None:
    recorder = Recorder()
    recorder.fail = 1
    commits = recorder.commits(interval_s=0.01)

    commits.add(1, "a")
    with pytest.raises(OSError, match="disk full"):
        await commits.durable()
    commits.add(2, "b")
    await commits.durable()

    assert recorder.groups == [["a", "b"]]  # the failed group again, with what came since
    assert recorder.settled == [2]
    await commits.close()


async def test_close_commits_what_is_queued() -> None:
    recorder = Recorder()
    commits = recorder.commits()
    commits.add(1, "a")
    waiting = commits.durable()

    await commits.close()

    assert recorder.groups == [["a"]]
    assert waiting.done() and waiting.exception() is None


async def test_close_lets_a_commit_under_way_finish_first() -> None:
    recorder = Recorder()
    commits = recorder.commits(max_writes=1)
    recorder.gate.clear()
    commits.add(1, "a")
    await asyncio.sleep(0.05)  # the commit of "a" is now held in its thread
    commits.add(2, "b")

    closing = asyncio.create_task(commits.close())
    await asyncio.sleep(0.05)
    assert not closing.done()
    recorder.gate.set()
    await closing

    assert recorder.groups == [["a"], ["b"]]
    assert recorder.settled == [1, 2]
