from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from memhive_domain.audit import AuditEntry, AuditQuery


@dataclass(frozen=True, slots=True)
class AuditPage:
    entries: list[AuditEntry]  # newest first
    next_cursor: int | None  # pass back as `before` for older entries; None: no more


class AuditLog(Protocol):
    async def append(self, entry: AuditEntry) -> None: ...

    async def read(
        self, workspace_id: str, query: AuditQuery, before: int | None = None
    ) -> AuditPage:
        """Newest first, entries older than the `before` cursor when given."""
        ...
