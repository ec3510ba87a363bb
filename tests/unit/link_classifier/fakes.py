"""The link classifier's own test doubles (a scripted chat, metrics) and a memory factory;
the port fakes are the shared ones in tests/fakes.py."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_ports import JsonReply
from memhive_telemetry import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from tests.fakes import T0

WORKSPACE = "ws-test"


def memory(memory_id: str, body: str, *, days: int = 0, user: str = "agent", **fields):
    draft = MemoryDraft(kind=fields.pop("kind", "fact"), body=body, **fields)
    principal = Principal(WORKSPACE, user)
    return create_memory(
        draft, memory_id=memory_id, principal=principal, now=T0 + timedelta(days=days)
    )


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
