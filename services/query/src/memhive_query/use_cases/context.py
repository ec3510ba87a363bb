"""Use case: the context pack, the bulletin plus what matters for the task, within a budget."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from memhive_domain.context_pack import ContextCandidate, ContextPack, build_context_pack
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import MAX_RESULTS, SelectionRequest, plan_listing
from memhive_domain.selection import is_selected
from memhive_ports import Clock, MemoryStore
from memhive_ports.token_counter import TokenCounter

from memhive_query.use_cases.bulletins import ReadBulletin, ScopeBulletin
from memhive_query.use_cases.recall import RecallMemories


class BuildContext:
    """Candidates: what the query recalls in the scope (relevant), and the memories the
    bulletin shows, so pinned and important ones cut from a truncated bulletin come back
    as items. build_context_pack orders them by class and fills the budget."""

    def __init__(
        self,
        bulletins: ReadBulletin,
        recall: RecallMemories,
        store: MemoryStore,
        counter: TokenCounter,
        clock: Clock,
    ) -> None:
        self._bulletins, self._recall, self._store = bulletins, recall, store
        self._counter, self._clock = counter, clock

    async def __call__(
        self,
        principal: Principal,
        query: str | None,
        scope: str | None,
        product_id: str | None,
        token_budget: int,
        *,
        scope_path: str | None = None,
        window: Mapping[str, datetime | None] | None = None,
    ) -> ContextPack:
        """`window`: created/occurred bounds (SelectionRequest's names) for the memories
        packed beside the bulletin; the bulletin itself is the node's, whole."""
        require(principal, Action.READ_CONTEXT)
        briefing = await self._bulletins(principal, scope, product_id, scope_path)
        selection = SelectionRequest(scope_path=briefing.scope.key, **(window or {}))
        candidates = [
            *await self._shown(principal, briefing, selection),
            *await self._relevant(principal, selection, query),
        ]
        return build_context_pack(
            briefing.bulletin.text,
            candidates,
            token_budget=token_budget,
            count_tokens=self._counter.count,
        )

    async def _shown(
        self, principal: Principal, briefing: ScopeBulletin, selection: SelectionRequest
    ) -> list[ContextCandidate]:
        now = self._clock.now()
        view = plan_listing(selection, principal=principal, now=now)
        ids = [memory_id for memory_id, _ in briefing.bulletin.sources]
        records = await self._store.get_many(principal.workspace_id, ids)
        shown = set(briefing.bulletin.shown_ids)
        return [
            ContextCandidate(r.memory)
            for r in records.values()
            if r.memory.id in shown and is_selected(r.memory, view, now)
        ]

    async def _relevant(
        self, principal: Principal, selection: SelectionRequest, query: str | None
    ) -> list[ContextCandidate]:
        if not query or not query.strip():
            return []
        recalled = await self._recall(principal, query, selection, MAX_RESULTS)
        return [ContextCandidate(r.memory, r.score) for r in recalled]
