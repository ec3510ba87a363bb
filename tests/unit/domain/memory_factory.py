"""One way to build a valid Memory in domain tests: plain defaults, any field overridden."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source


def a_memory(memory_id: str, *, at: datetime, **changes: object) -> Memory:
    """A live, private, global fact created and last updated `at`."""
    base = Memory(
        id=memory_id,
        workspace_id="ws",
        kind=MemoryKind.FACT,
        body=f"body of {memory_id}",
        importance=0.5,
        pinned=False,
        tags=(),
        scope=Scope.GLOBAL,
        product_id=None,
        visibility=Visibility.PRIVATE,
        source=Source.AGENT,
        source_ref=None,
        created_by="u1",
        expires_at=None,
        created_at=at,
        updated_at=at,
    )
    return replace(base, **changes)
