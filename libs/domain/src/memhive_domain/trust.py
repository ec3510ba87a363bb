"""Trust and staleness: how far a reader should rely on a memory, from what is known about it.

Both are pure functions of the record and the time, so they are recomputed whenever the
record is read: every input (a flag, a confirmation, a correction, an access) is itself a
record write, so the score follows it at once, and no job rescans memories when nothing
changes. Weights (documented in docs/architecture.md, "Trust and staleness"):

trust = base(author) + confirmations (+0.05 each, at most +0.15) + corrections (+0.05 each,
at most +0.1) - flags (wrong 0.6, outdated 0.4, unverified 0.2 each), clamped to [0.05, 1].

staleness = 1 - 0.5 ** (days since the memory was last fresh / the kind's half-life), where
fresh means changed, confirmed or recalled; an `outdated` flag makes it 1.

Recall multiplies relevance by trust and by 1 - 0.3 * staleness, as ToolHive's memory server
does. The author bases are close together (0.8..0.9), so who wrote a memory is a mild prior;
a flag moves trust by far more, so a flagged memory falls below an equally relevant one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memhive_domain.curation import AuthorKind, FlagKind, author_kind
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory

# A person's memory is checked by someone who knows; an upstream system records what happened
# but may lag; an agent's own conclusions are the most often wrong.
AUTHOR_BASE: dict[AuthorKind, float] = {
    AuthorKind.USER: 0.9,
    AuthorKind.UPSTREAM: 0.85,
    AuthorKind.AGENT: 0.8,
}
CONFIRMATION_BONUS, MAX_CONFIRMATION_BONUS = 0.05, 0.15
CORRECTION_BONUS, MAX_CORRECTION_BONUS = 0.05, 0.1  # someone looked at it and fixed it
FLAG_PENALTY: dict[FlagKind, float] = {
    FlagKind.WRONG: 0.6,
    FlagKind.OUTDATED: 0.4,
    FlagKind.UNVERIFIED: 0.2,
}
MIN_TRUST = 0.05  # never zero: a flagged memory stays findable, ranked last

# Days until half stale: who someone is changes slowly, a todo goes stale in weeks.
HALF_LIFE_DAYS: dict[MemoryKind, float] = {
    MemoryKind.IDENTITY: 365,
    MemoryKind.PREFERENCE: 365,
    MemoryKind.EVENT: 365,  # what happened stays what happened
    MemoryKind.DECISION: 180,
    MemoryKind.FACT: 180,
    MemoryKind.PROCEDURE: 180,
    MemoryKind.GOAL: 90,
    MemoryKind.OBSERVATION: 60,
    MemoryKind.TODO: 30,
}

STALENESS_INFLUENCE = 0.3


@dataclass(frozen=True, slots=True)
class TrustScores:
    trust: float  # 0.05..1, higher is more reliable
    staleness: float  # 0..1, higher is older news


def score(memory: Memory, now: datetime) -> TrustScores:
    return TrustScores(round(trust_of(memory), 4), round(staleness_of(memory, now), 4))


def trust_of(memory: Memory) -> float:
    state = memory.curation
    value = AUTHOR_BASE[author_kind(state, memory.source)]
    value += min(state.confirmations * CONFIRMATION_BONUS, MAX_CONFIRMATION_BONUS)
    value += min(state.corrections * CORRECTION_BONUS, MAX_CORRECTION_BONUS)
    value -= sum(FLAG_PENALTY[flag.kind] for flag in state.flags)
    return min(1.0, max(MIN_TRUST, value))


def staleness_of(memory: Memory, now: datetime) -> float:
    if any(flag.kind is FlagKind.OUTDATED for flag in memory.curation.flags):
        return 1.0
    moments = (memory.updated_at, memory.curation.last_confirmed_at, memory.last_accessed_at)
    fresh = max(m for m in moments if m is not None)
    days = max(0.0, (now - fresh).total_seconds() / 86_400)
    return 1.0 - 0.5 ** (days / HALF_LIFE_DAYS[memory.kind])


def reliability_weight(memory: Memory, now: datetime) -> float:
    """What recall multiplies relevance by: trust × (1 − 0.3 × staleness)."""
    return trust_of(memory) * (1.0 - STALENESS_INFLUENCE * staleness_of(memory, now))
