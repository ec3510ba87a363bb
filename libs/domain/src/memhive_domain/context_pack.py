"""The context pack: the bulletin plus the memories that matter for one request, within a budget.

Selection walks priority classes (pinned, high importance, relevant to the query, the rest).
A candidate that does not fit is skipped and the walk goes on, smaller ones included: every
candidate is offered the space left by all candidates before it, so a lower class only ever
takes room no higher one could use, and the budget is filled rather than left half empty.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from memhive_domain.bulletin import ids_in_bulletin, latest_revisions, memory_line
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory

MAX_TOKEN_BUDGET = 32_000
HIGH_IMPORTANCE = 0.8
DEFAULT_PACK_LINE_CHARS = 1000
MEMORIES_HEADER = "## Memories for this request"

CountTokens = Callable[[str], int]


class PackClass(StrEnum):
    PINNED = "pinned"
    IMPORTANT = "important"  # importance >= HIGH_IMPORTANCE
    RELEVANT = "relevant"  # matched the query
    OTHER = "other"


CLASS_RANK = {c: rank for rank, c in enumerate(PackClass)}


@dataclass(frozen=True, slots=True)
class ContextCandidate:
    """A memory the caller may show: visible to the principal and live (recall and listing
    filter that). `relevance` is its recall score when it matched the query, higher is better."""

    memory: Memory
    relevance: float | None = None


@dataclass(frozen=True, slots=True)
class PackedMemory:
    memory_id: str
    pack_class: PackClass


@dataclass(frozen=True, slots=True)
class ContextPack:
    text: str
    tokens_used: int  # count_tokens(text), never above token_budget
    token_budget: int
    selected: tuple[PackedMemory, ...]  # in the order they appear in the text
    bulletin_truncated: bool


def build_context_pack(
    bulletin_text: str,
    candidates: Sequence[ContextCandidate],
    *,
    token_budget: int,
    count_tokens: CountTokens,
    line_chars: int = DEFAULT_PACK_LINE_CHARS,
) -> ContextPack:
    """The bulletin is counted first (cut at a line boundary if it alone is too long); memories
    it already shows are not repeated. Tokens are estimated piece by piece while selecting,
    then the exact text is counted and trailing items dropped until it fits, because a real
    tokenizer need not count a concatenation as the sum of its parts."""
    _check_budget(token_budget)
    bulletin_lines = bulletin_text.split("\n") if bulletin_text else []
    head = _fit_prefix(bulletin_lines, token_budget, count_tokens)
    offered = prioritised(candidates, exclude=set(ids_in_bulletin("\n".join(head))))
    chosen = _select(head, offered, token_budget, count_tokens, line_chars)
    head, chosen = _shrink_to_budget(head, chosen, token_budget, count_tokens, line_chars)
    text = _render(head, chosen, line_chars)
    return ContextPack(
        text=text,
        tokens_used=count_tokens(text),
        token_budget=token_budget,
        selected=tuple(PackedMemory(c.memory.id, cls) for cls, c in chosen),
        bulletin_truncated=len(head) < len(bulletin_lines),
    )


def pack_class(candidate: ContextCandidate) -> PackClass:
    if candidate.memory.pinned:
        return PackClass.PINNED
    if candidate.memory.importance >= HIGH_IMPORTANCE:
        return PackClass.IMPORTANT
    return PackClass.OTHER if candidate.relevance is None else PackClass.RELEVANT


def prioritised(
    candidates: Iterable[ContextCandidate], *, exclude: set[str]
) -> list[tuple[PackClass, ContextCandidate]]:
    """One entry per memory, best class first. Relevant ones by recall score; the other
    classes by importance, then recency; ties by id."""
    merged = [c for c in _merge_duplicates(candidates) if c.memory.id not in exclude]
    ranked = [(pack_class(c), c) for c in merged]
    return sorted(ranked, key=lambda pair: _priority_key(*pair))


def _priority_key(cls: PackClass, c: ContextCandidate) -> tuple[int, float, float, str]:
    primary = c.relevance if cls is PackClass.RELEVANT and c.relevance is not None else None
    first = -(c.memory.importance if primary is None else primary)
    return (CLASS_RANK[cls], first, -c.memory.updated_at.timestamp(), c.memory.id)


def _merge_duplicates(candidates: Iterable[ContextCandidate]) -> list[ContextCandidate]:
    """The same memory from recall and from a listing: its latest revision, best score."""
    candidates = list(candidates)
    scores: dict[str, list[float]] = {}
    for c in candidates:
        scores.setdefault(c.memory.id, [])
        if c.relevance is not None:
            scores[c.memory.id].append(c.relevance)
    latest = latest_revisions(c.memory for c in candidates)
    return [ContextCandidate(m, max(scores[m.id], default=None)) for m in latest]


def _fit_prefix(lines: Sequence[str], budget: int, count_tokens: CountTokens) -> list[str]:
    used, kept = 0, []
    for line in lines:
        cost = count_tokens(("\n" if kept else "") + line)
        if used + cost > budget:
            break
        used, kept = used + cost, [*kept, line]
    return kept


def _select(
    head: list[str],
    offered: Sequence[tuple[PackClass, ContextCandidate]],
    budget: int,
    count_tokens: CountTokens,
    line_chars: int,
) -> list[tuple[PackClass, ContextCandidate]]:
    used = count_tokens("\n".join(head)) if head else 0
    chosen: list[tuple[PackClass, ContextCandidate]] = []
    for cls, candidate in offered:
        opening = "" if chosen else MEMORIES_HEADER + "\n"
        piece = ("\n" if head or chosen else "") + opening + _line(candidate, line_chars)
        cost = count_tokens(piece)
        if used + cost <= budget:
            used += cost
            chosen.append((cls, candidate))
    return chosen


def _shrink_to_budget(
    head: list[str],
    chosen: list[tuple[PackClass, ContextCandidate]],
    budget: int,
    count_tokens: CountTokens,
    line_chars: int,
) -> tuple[list[str], list[tuple[PackClass, ContextCandidate]]]:
    """Drop the last memory (then the last bulletin line) until the exact text fits."""
    while head or chosen:
        if count_tokens(_render(head, chosen, line_chars)) <= budget:
            break
        if chosen:
            chosen = chosen[:-1]
        else:
            head = head[:-1]
    return head, chosen


def _render(
    head: Sequence[str], chosen: Sequence[tuple[PackClass, ContextCandidate]], line_chars: int
) -> str:
    lines = [_line(c, line_chars) for _, c in chosen]
    return "\n".join([*head, *([MEMORIES_HEADER, *lines] if lines else [])])


def _line(candidate: ContextCandidate, line_chars: int) -> str:
    return memory_line(candidate.memory, line_chars, with_kind=True)


def _check_budget(token_budget: object) -> None:
    is_int = isinstance(token_budget, int) and not isinstance(token_budget, bool)
    if is_int and 1 <= token_budget <= MAX_TOKEN_BUDGET:
        return
    problem = f"must be an integer 1..{MAX_TOKEN_BUDGET}, got {token_budget!r}"
    raise InvalidInput([FieldProblem("token_budget", problem)])
