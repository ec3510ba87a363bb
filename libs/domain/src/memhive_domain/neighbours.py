"""Neighbour context: memories saved together (turns of one conversation, comments of one
thread) lend each other relevance when one of them matches strongly.

Memories are neighbours when their `source_ref`s are the same up to a trailing number
that differs by one ("chat-7:D3:4" and "chat-7:D3:5"): the shape hooks give to the
parts of one upstream conversation. The answer to a question often sits in the turn
next to the one that repeats the question's words ("did you paint that?" / "yes, last
year"), or two places on (the same speaker going on after the reply), so each candidate
gains `share` x the best fused score among its candidate neighbours, one place away at
full weight, two places away at TWO_AWAY. Only candidates count: no extra lookup on the
hot path. Measured on LoCoMo (bench.quality_study, docs/benchmarks.md): one place, share
0.5, lifted recall@5 from 0.589 to 0.621 (with BM25 x3 and time boosts 0.640); two places
at half, to 0.658. A memory that asks a question ("What pets do you have?") lends the
reply right after it more, REPLY_SHARE instead of share: that reply holds the answer the
question's words point to (issue 27, docs/benchmarks.md: the default loses 0.004 without).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from memhive_domain.fusion import FusedHit

DEFAULT_NEIGHBOUR_SHARE = 0.5
TWO_AWAY = 0.5  # a neighbour two places away lends half as much as an adjacent one
DEFAULT_REPLY_SHARE = 0.7  # what a memory that asks lends the reply right after it
_TRAILING_NUMBER = re.compile(r"^(.*?)(\d{1,9})$")


def thread_position(source_ref: str | None) -> tuple[str, int] | None:
    """("chat-7:D3:", 4) for "chat-7:D3:4"; None when the ref ends in no number."""
    match = _TRAILING_NUMBER.match(source_ref or "")
    return None if match is None else (match.group(1), int(match.group(2)))


def with_neighbour_context(
    hits: Sequence[FusedHit],
    source_refs: Mapping[str, str | None],
    share: float,
    *,
    asking: AbstractSet[str] = frozenset(),
    reply_share: float = DEFAULT_REPLY_SHARE,
) -> list[FusedHit]:
    """The hits, each score raised by share x its best neighbour's (reply_share x the
    score of the memory right before it, when that one is in `asking`), best first."""
    if share <= 0:
        return list(hits)
    where = {h.memory_id: thread_position(source_refs.get(h.memory_id)) for h in hits}
    at = {pos: h.score for h in hits if (pos := where[h.memory_id]) is not None}
    asked = {pos for h in hits if h.memory_id in asking and (pos := where[h.memory_id])}
    raised = [_raised(h, _bonus(where[h.memory_id], at, asked, share, reply_share)) for h in hits]
    return sorted(raised, key=lambda h: (-h.score, h.memory_id))


def _bonus(
    position: tuple[str, int] | None,
    at: Mapping[tuple[str, int], float],
    asked: AbstractSet[tuple[str, int]],
    share: float,
    reply_share: float,
) -> float:
    bonus = share * _best_neighbour(position, at)
    if position is not None and (previous := (position[0], position[1] - 1)) in asked:
        bonus = max(bonus, reply_share * at[previous])
    return bonus


def _raised(hit: FusedHit, bonus: float) -> FusedHit:
    if bonus <= 0:
        return hit
    return FusedHit(hit.memory_id, hit.score + bonus, hit.ranks, hit.lane_scores)


def _best_neighbour(position: tuple[str, int] | None, at: Mapping[tuple[str, int], float]) -> float:
    if position is None:
        return 0.0
    prefix, number = position
    adjacent = max(at.get((prefix, number - 1), 0.0), at.get((prefix, number + 1), 0.0))
    two_away = max(at.get((prefix, number - 2), 0.0), at.get((prefix, number + 2), 0.0))
    return max(adjacent, TWO_AWAY * two_away)
