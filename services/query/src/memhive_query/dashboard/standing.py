"""Use case: what the dashboard's lists say about each memory besides its body: its badges
(superseded, and by what; flagged; stale; expired) and, in a search, its confidence.

A listing resolves nothing away: every memory stays listed, and one that a newer memory
supersedes is marked with that successor, by the same rules recall follows
(`SupersessionResolver`), so a successor the reader may not see marks nothing. That costs
one more read of the page's records (their edges), a dashboard page's price, not recall's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.ranking import RankedMemory
from memhive_domain.trust import staleness_of
from memhive_ports import Clock, MemoryStore

from memhive_query.use_cases.supersession_resolver import RecalledMemory, SupersessionResolver

# Past half its kind's freshness (trust.py's half-life since it was last changed, confirmed
# or recalled), or flagged outdated: worth a second look before relying on it.
STALE_FROM = 0.5


@dataclass(frozen=True, slots=True)
class Listed:
    memory: Memory
    staleness: float  # 0 fresh .. 1 stale, as of the page
    expired: bool
    superseded_by: str | None = None  # the current memory that replaces it
    confidence: float | None = None  # a search's (confidence.py); None in a listing

    @property
    def stale(self) -> bool:
        return self.staleness >= STALE_FROM

    @property
    def flag_kinds(self) -> list[str]:
        return sorted({flag.kind.value for flag in self.memory.curation.flags})


class Standing:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store, self._clock = store, clock
        self._supersession = SupersessionResolver(store, clock)

    async def of_listing(self, principal: Principal, memories: Sequence[Memory]) -> list[Listed]:
        records = await self._store.get_many(principal.workspace_id, [m.id for m in memories])
        candidates = [RankedMemory(m, 0.0, 0.0, {}) for m in memories if m.id in records]
        resolved = await self._supersession.resolve(
            principal, candidates, records, include_superseded=True
        )
        successor = {r.memory.id: r.superseded_by for r in resolved if r.superseded_by}
        return [self._listed(m, successor.get(m.id)) for m in memories]

    def of_search(self, recalled: Sequence[RecalledMemory]) -> list[Listed]:
        return [self._listed(r.memory, r.superseded_by, r.confidence) for r in recalled]

    def _listed(
        self, memory: Memory, superseded_by: str | None, confidence: float | None = None
    ) -> Listed:
        now = self._clock.now()
        staleness = staleness_of(memory, now)
        return Listed(memory, staleness, memory.is_expired(now), superseded_by, confidence)
