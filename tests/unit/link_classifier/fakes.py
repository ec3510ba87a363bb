"""In-memory fakes of the ports the link classifier uses, and a memory factory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from memhive_domain.edges import Edge
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter
from memhive_ports import JsonReply, LaneHit
from memhive_ports.store import StoredMemory
from memhive_telemetry import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

WORKSPACE = "ws-test"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def memory(memory_id: str, body: str, *, days: int = 0, user: str = "agent", **fields):
    draft = MemoryDraft(kind=fields.pop("kind", "fact"), body=body, **fields)
    principal = Principal(WORKSPACE, user)
    return create_memory(
        draft, memory_id=memory_id, principal=principal, now=T0 + timedelta(days=days)
    )


class FixedClock:
    def __init__(self, now: datetime = T0 + timedelta(days=30)) -> None:
        self.current = now

    def now(self) -> datetime:
        return self.current


class FakeStore:
    def __init__(self) -> None:
        self.records: dict[str, StoredMemory] = {}

    def put(self, memory, edges: tuple[Edge, ...] = ()) -> None:
        self.records[memory.id] = StoredMemory(memory, memory.revision, "cmd", edges)

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None:
        found = self.records.get(memory_id)
        return found if found and found.memory.workspace_id == workspace_id else None

    async def get_many(self, workspace_id: str, memory_ids: Sequence[str]):
        return {i: s for i in memory_ids if (s := await self.get(workspace_id, i))}


@dataclass
class FakeVectorIndex:
    """Answers every search with the scripted hits, best first, and keeps what it was asked."""

    hits: list[LaneHit] = field(default_factory=list)
    searches: list[tuple[MemoryFilter, int]] = field(default_factory=list)

    async def search(self, vector, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        self.searches.append((memory_filter, limit))
        return self.hits[:limit]


@dataclass
class RecordingPublisher:
    published: list[tuple[str, Any, str]] = field(default_factory=list)

    async def publish(self, subject: str, message, *, msg_id: str) -> None:
        self.published.append((subject, message, msg_id))


@dataclass
class ScriptedChat:
    """JsonChat that answers from a list (the last repeats); an exception in it is raised."""

    answers: list[Any]
    questions: list[tuple[str, str]] = field(default_factory=list)

    async def complete_json(self, system: str, user: str) -> JsonReply:
        self.questions.append((system, user))
        answer = self.answers[min(len(self.questions), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return JsonReply(answer, tokens=150)


@dataclass
class Metrics:
    reader: InMemoryMetricReader
    provider: MeterProvider

    @classmethod
    def collecting(cls) -> Metrics:
        reader = InMemoryMetricReader()
        return cls(reader, MeterProvider(metric_readers=[reader]))

    def totals(self) -> dict[str, float]:
        """Each counter's sum over all its attributes, by short name."""
        data = self.reader.get_metrics_data()
        totals: dict[str, float] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    name = metric.name.rsplit(".", 1)[-1]
                    totals[name] = sum(p.value for p in metric.data.data_points)
        return totals


def with_revision(m, revision: int):
    return replace(m, revision=revision)
