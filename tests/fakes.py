"""In-memory fakes of the ports, for unit tests (no I/O). One of each, shared by every tier
that needs one; integration tests use the real adapters instead."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from memhive.v1 import edges_pb2
from memhive_domain.edges import Edge
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_ports import LaneHit
from memhive_ports.store import StoredMemory

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class FixedClock:
    """Clock: `current` until a test moves it."""

    def __init__(self, now: datetime = T0 + timedelta(days=30)) -> None:
        self.current = now

    def now(self) -> datetime:
        return self.current


class FakeStore:
    """MemoryStore with the same revision-checked writes as the KV store."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], StoredMemory] = {}
        self.conflicts_to_raise = 0  # the next N replaces fail as if someone wrote first
        self.reads: list[list[str]] = []  # the ids of each get_many, in order

    def put(self, memory: Memory, edges: tuple[Edge, ...] = ()) -> StoredMemory:
        """Seed a record, as if written long ago."""
        return self._put(memory, memory.revision, "seed", edges)

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None:
        return self.rows.get((workspace_id, memory_id))

    async def get_many(self, workspace_id: str, memory_ids: Sequence[str]):
        self.reads.append(list(memory_ids))
        found = {m: self.rows.get((workspace_id, m)) for m in memory_ids}
        return {m: s for m, s in found.items() if s is not None}

    async def create(self, memory: Memory, command_id: str) -> StoredMemory:
        if (memory.workspace_id, memory.id) in self.rows:
            raise ConcurrentUpdate("exists")
        return self._put(memory, 1, command_id)

    async def replace(
        self,
        current: StoredMemory,
        memory: Memory,
        command_id: str,
        edges: tuple[Edge, ...] | None = None,
    ) -> StoredMemory:
        if self.conflicts_to_raise:
            self.conflicts_to_raise -= 1
            raise ConcurrentUpdate("someone wrote in between")
        if self.rows[(memory.workspace_id, memory.id)].revision != current.revision:
            raise ConcurrentUpdate("stale")
        kept = current.edges if edges is None else edges
        return self._put(memory, current.revision + 1, command_id, kept)

    def _put(
        self, memory: Memory, revision: int, command_id: str, edges: tuple[Edge, ...] = ()
    ) -> StoredMemory:
        stored = StoredMemory(memory, revision, command_id, edges)
        self.rows[(memory.workspace_id, memory.id)] = stored
        return stored


@dataclass
class FakePublisher:
    """EventPublisher that keeps what it was given; `failure`, when set, is raised instead."""

    sent: list[tuple[str, Message, str]] = field(default_factory=list)
    failure: Exception | None = None

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        if self.failure is not None:
            raise self.failure
        self.sent.append((subject, message, msg_id))


@dataclass
class FakeVectorIndex:
    """Answers every search with the scripted hits, best first, and keeps what it was asked."""

    hits: list[LaneHit] = field(default_factory=list)
    searches: list[tuple[MemoryFilter, int]] = field(default_factory=list)

    async def search(self, vector, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        self.searches.append((memory_filter, limit))
        return self.hits[:limit]


@dataclass
class FakeLexicalIndex:
    """Scripted BM25 hits, and ids listed from them in order; keeps what it was asked."""

    hits: list[LaneHit] = field(default_factory=list)
    searches: list[tuple[str, MemoryFilter, int]] = field(default_factory=list)

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        self.searches.append((text, memory_filter, limit))
        return self.hits[:limit]

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        """The hits in order, as if all created at T0; keyset: strictly after `after`."""
        ids = [h.memory_id for h in self.hits]
        start = 0 if after is None else ids.index(after.memory_id) + 1
        return [ListPosition(T0, i) for i in ids[start : start + limit]]


class FakeEmbedder:
    """One fixed unit vector per text; enough where the lanes are fakes too."""

    model_name = "fake-embedder"
    dimensions = 3

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return [[1.0, 0.0, 0.0] for _ in texts]


class FakeWaiter:
    """The gateway's EventWaiter: the awaited event arrives at once, or never (`arrives`)."""

    def __init__(self, *, arrives: bool = True) -> None:
        self.arrives = arrives
        self.expected: list[tuple[str, str]] = []

    def expect(self, key: str, stage: str) -> tuple[str, str]:
        self.expected.append((key, stage))
        return (key, stage)

    async def wait(self, future: tuple[str, str], timeout_s: float) -> bool:
        return self.arrives

    async def event(self, future: tuple[str, str], timeout_s: float) -> Message | None:
        """A link's event: applied with nothing refused, when it arrives at all."""
        return edges_pb2.MemoriesLinked(command_id=future[0]) if self.arrives else None

    def cancel(self, future: tuple[str, str]) -> None:
        self.expected.remove(future)


@dataclass
class FakeHealthProbe:
    """HealthProbe answering the scripted checks; counts the lane-size recordings."""

    checks: dict[str, bool] = field(default_factory=lambda: {"nats": True})
    lane_sizes_recorded: int = 0

    async def readiness(self) -> dict[str, bool]:
        return dict(self.checks)

    async def record_lane_sizes(self) -> None:
        self.lane_sizes_recorded += 1
