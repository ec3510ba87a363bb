"""Use case: the context pack, the bulletin plus what matters for the task, within a budget."""

from __future__ import annotations

from dataclasses import replace

from memhive_domain.context_pack import ContextCandidate, ContextPack, build_context_pack
from memhive_domain.principals import Principal
from memhive_domain.recall import MAX_RESULTS, SelectionRequest, view_of
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
    ) -> ContextPack:
        briefing = await self._bulletins(principal, scope, product_id)
        candidates = [
            *await self._shown(principal, briefing),
            *await self._relevant(principal, briefing, query),
        ]
        return build_context_pack(
            briefing.bulletin.text,
            candidates,
            token_budget=token_budget,
            count_tokens=self._counter.count,
        )

    async def _shown(self, principal: Principal, briefing: ScopeBulletin) -> list[ContextCandidate]:
        ids = [memory_id for memory_id, _ in briefing.bulletin.sources]
        records = await self._store.get_many(principal.workspace_id, ids)
        view = replace(
            view_of(principal), scope=briefing.scope.scope, product_id=briefing.scope.product_id
        )
        now = self._clock.now()
        shown = set(briefing.bulletin.shown_ids)
        return [
            ContextCandidate(r.memory)
            for r in records.values()
            if r.memory.id in shown and is_selected(r.memory, view, now)
        ]

    async def _relevant(
        self, principal: Principal, briefing: ScopeBulletin, query: str | None
    ) -> list[ContextCandidate]:
        if not query or not query.strip():
            return []
        selection = SelectionRequest(
            scope=briefing.scope.scope, product_id=briefing.scope.product_id
        )
        recalled = await self._recall(principal, query, selection, MAX_RESULTS)
        return [ContextCandidate(r.memory, r.score) for r in recalled]
