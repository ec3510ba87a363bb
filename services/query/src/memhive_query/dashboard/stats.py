"""Use case: the dashboard's numbers, each computed by the engine that already has it.

- memories per kind and scope: one filtered count per cell in the lexical lane (the lane
  counts from its index; no id is fetched), within the caller's view;
- saves and recalls per day: JetStream counts the MemorySaved events of the workspace on
  the log and its MemoriesRecalled on the activity stream (kept 7 days) from each midnight
  on (`EventCounts`); a day is the difference of two counts. Saves count every saved
  revision; recalls count recall requests that returned something. Not for viewers;
- dead letters: the workspace's letters (those the policy lets list them: not agents),
  per consumer, newest shown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta

from memhive_contracts import subjects
from memhive_contracts.streams import ACTIVITY_STREAM, LOG_STREAM
from memhive_domain.kinds import MemoryKind
from memhive_domain.policy import Action, allows
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest, plan_listing
from memhive_domain.scopes import Scope
from memhive_ports import Clock, LexicalIndex
from memhive_ports.dead_letters import DeadLetter
from memhive_ports.event_counts import EventCounts

from memhive_query.use_cases.dead_letters import WorkspaceDeadLetters

DAYS = 7
DEAD_LETTERS_SHOWN = 20


@dataclass(frozen=True, slots=True)
class DayActivity:
    day: date
    saves: int
    recalls: int


@dataclass(frozen=True, slots=True)
class Stats:
    per_kind: dict[MemoryKind, dict[Scope, int]]
    totals: dict[Scope, int]
    activity: list[DayActivity] | None  # None: not a member
    dead_letters: list[DeadLetter] | None
    dead_letters_per_consumer: dict[str, int]


class MemoryStats:
    def __init__(
        self,
        lexical: LexicalIndex,
        counts: EventCounts,
        dead_letters: WorkspaceDeadLetters,
        clock: Clock,
    ) -> None:
        self._lexical, self._counts, self._letters = lexical, counts, dead_letters
        self._clock = clock

    async def __call__(self, principal: Principal) -> Stats:
        per_kind = {kind: await self._per_scope(principal, kind) for kind in MemoryKind}
        totals = {s: sum(row[s] for row in per_kind.values()) for s in Scope}
        if not principal.is_member:
            return Stats(per_kind, totals, None, None, {})
        activity = await self._activity(principal.workspace_id)
        if not allows(principal, Action.LIST_DEAD_LETTERS):  # agents: not operators
            return Stats(per_kind, totals, activity, None, {})
        letters = await self._letters(principal, None, 1000)
        return Stats(
            per_kind,
            totals,
            activity,
            letters[-DEAD_LETTERS_SHOWN:][::-1],
            dict(Counter(d.consumer for d in letters)),
        )

    async def _per_scope(self, principal: Principal, kind: MemoryKind) -> dict[Scope, int]:
        # Planned without a scope, then narrowed: a product scope with no product id counts
        # every product's memories (a listing would ask for one product).
        view = plan_listing(
            SelectionRequest(kinds=[kind]), principal=principal, now=self._clock.now()
        )
        return {s: await self._lexical.count_matching(replace(view, scope=s)) for s in Scope}

    async def _activity(self, workspace_id: str) -> list[DayActivity]:
        today = self._clock.now().astimezone(UTC).date()
        days = [today - timedelta(days=n) for n in range(DAYS - 1, -1, -1)]
        moments = [datetime.combine(d, time(), tzinfo=UTC) for d in days]
        saves = await self._per_day(LOG_STREAM, subjects.MEMORY_SAVED, workspace_id, moments)
        recalls = await self._per_day(
            ACTIVITY_STREAM, subjects.MEMORIES_RECALLED, workspace_id, moments
        )
        return [DayActivity(d, s, r) for d, s, r in zip(days, saves, recalls, strict=True)]

    async def _per_day(
        self, stream: str, subject: str, workspace_id: str, moments: list[datetime]
    ) -> list[int]:
        since = await self._counts.since(
            stream, subjects.for_workspace(subject, workspace_id), moments
        )
        return [a - b for a, b in zip(since, [*since[1:], 0], strict=True)]
