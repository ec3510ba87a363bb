"""What every fault test asks at the end: each acknowledged save is readable, listed once
and recalled exactly once; nothing unacknowledged was doubled either."""

from __future__ import annotations

import itertools
import time

from memhive_client import MemhiveClient, Memory, NotFound


def assert_kept_exactly_once(memhive: MemhiveClient, acked: dict[str, str]) -> None:
    """`acked`: body -> id of every save that was answered 201 or 202."""
    for body, memory_id in acked.items():
        assert wait_readable(memhive, memory_id).body == body
    bodies = listed_once_indexed(memhive, set(acked))
    counts = {body: bodies.count(body) for body in acked}
    assert set(counts.values()) <= {1}, {b: c for b, c in counts.items() if c != 1}
    assert len(bodies) == len(set(bodies))  # nothing unacknowledged was doubled either
    for body, memory_id in acked.items():  # recallable, exactly once
        assert recalled_ids(memhive, body) == [memory_id]


def wait_readable(memhive: MemhiveClient, memory_id: str, timeout_s: float = 60) -> Memory:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            return memhive.get(memory_id)
        except NotFound:
            time.sleep(0.2)
    raise AssertionError(f"acknowledged memory {memory_id} is not readable")


def listed_once_indexed(
    memhive: MemhiveClient, bodies: set[str], timeout_s: float = 120
) -> list[str]:
    """The listing (served by a lane) once every acknowledged body is indexed."""
    deadline = time.monotonic() + timeout_s
    while not bodies <= set(listed := all_bodies(memhive)):
        if time.monotonic() > deadline:
            raise AssertionError(f"never indexed: {sorted(bodies - set(listed))}")
        time.sleep(0.5)
    return listed


def all_bodies(memhive: MemhiveClient) -> list[str]:
    memories = list(itertools.islice(memhive.iter_memories(page_size=100), 100 * 100 + 1))
    assert len(memories) <= 100 * 100, "too many pages"
    return [memory.body for memory in memories]


def recalled_ids(memhive: MemhiveClient, body: str) -> list[str]:
    return [hit.id for hit in memhive.recall(body, max_results=10) if hit.body == body]
