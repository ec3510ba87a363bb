"""Use case: export what the caller may read, as memhive's JSONL (every field, the edges
between exported memories, the revision history from the log) or as Markdown, one file per
node of the scope tree.

Bounded in memory: memories are read a listing page at a time (the listing's own visibility
rules); only the exported ids and the edges between them are kept until the end. The
history is one scan of the workspace's saved/forgotten events, not one per memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from memhive_domain.edges import Edge, EdgeKey
from memhive_domain.exchange.markdown_export import render_scope_files
from memhive_domain.exchange.memhive_jsonl import (
    dumps,
    edge_line,
    header_line,
    memory_line,
    revision_line,
)
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest, plan_listing
from memhive_ports import Clock, MemoryStore
from memhive_ports.revisions import WorkspaceHistory

from memhive_query.use_cases.memories import MAX_PAGE, MemoryReader


@dataclass
class _Exported:
    ids: set[str]
    edges: dict[EdgeKey, Edge]

    def keep_edges(self) -> list[Edge]:
        """Edges whose both ends were exported (the other end may be invisible, or gone)."""
        return [e for e in self.edges.values() if e.src_id in self.ids and e.dst_id in self.ids]


class ExportMemories:
    def __init__(
        self, reader: MemoryReader, store: MemoryStore, history: WorkspaceHistory, clock: Clock
    ) -> None:
        self._reader, self._store, self._history, self._clock = reader, store, history, clock

    def jsonl(self, principal: Principal, scope_path: str | None) -> AsyncIterator[str]:
        """Checks the right and the node at once, so a route answers 403 or 422 before it
        streams (an answer that has started cannot change its status)."""
        self._checked(principal, scope_path)
        return self._jsonl(principal, scope_path)

    def _checked(self, principal: Principal, scope_path: str | None) -> None:
        require(principal, Action.EXPORT)
        plan_listing(
            SelectionRequest(scope_path=scope_path), principal=principal, now=self._clock.now()
        )

    async def _jsonl(self, principal: Principal, scope_path: str | None) -> AsyncIterator[str]:
        yield dumps(header_line(principal.workspace_id, self._clock.now(), scope_path))
        exported = _Exported(set(), {})
        async for memory in self._memories(principal, scope_path, exported):
            yield dumps(memory_line(memory))
        for edge in exported.keep_edges():
            yield dumps(edge_line(edge))
        async for revision in self._history.workspace_changes(principal.workspace_id):
            if revision.memory.id in exported.ids:
                yield dumps(revision_line(revision))

    async def markdown(self, principal: Principal, scope_path: str | None) -> dict[str, str]:
        """File name -> Markdown text, one file per node."""
        self._checked(principal, scope_path)
        exported = _Exported(set(), {})
        memories = [m async for m in self._memories(principal, scope_path, exported)]
        now = self._clock.now()
        return render_scope_files(memories, exported.keep_edges(), principal.workspace_id, now)

    async def _memories(
        self, principal: Principal, scope_path: str | None, into: _Exported
    ) -> AsyncIterator[Memory]:
        selection = SelectionRequest(scope_path=scope_path)
        cursor = None
        while True:
            page = await self._reader.list(principal, selection, cursor, MAX_PAGE)
            records = await self._store.get_many(principal.workspace_id, [m.id for m in page.items])
            for memory in page.items:
                into.ids.add(memory.id)
                if (stored := records.get(memory.id)) is not None:
                    into.edges.update((e.key, e) for e in stored.edges)
                yield memory
            if not (cursor := page.next_cursor):
                return
