"""Small Memory objects and deterministic vectors for the lane contract tests."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source

DIMENSIONS = 8
NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def a_memory(body: str = "a plain remembered fact", **changes: object) -> Memory:
    product_id = changes.get("product_id")
    memory = Memory(
        id=str(uuid.uuid4()),
        workspace_id="ws-1",
        kind=MemoryKind.FACT,
        body=body,
        importance=0.5,
        pinned=False,
        tags=(),
        scope=Scope.PRODUCT if product_id else Scope.GLOBAL,
        product_id=None,
        visibility=Visibility.PRIVATE,
        source=Source.AGENT,
        source_ref=None,
        created_by="user-1",
        expires_at=None,
        created_at=NOW - timedelta(days=1),
        updated_at=NOW - timedelta(days=1),
    )
    return replace(memory, **changes)


def axis(i: int) -> list[float]:
    """The unit vector along axis i."""
    return [1.0 if j == i else 0.0 for j in range(DIMENSIONS)]


def blend(weights: dict[int, float]) -> list[float]:
    return [weights.get(j, 0.0) for j in range(DIMENSIONS)]
