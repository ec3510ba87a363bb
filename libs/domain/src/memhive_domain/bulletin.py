"""The deterministic bulletin: what an agent should know at session start, for one scope.

Byte-identical text for the same inputs in any order, so agents can keep it in a prompt
cache. Tokens are counted with the injected `count_tokens` on the exact rendered text;
production injects a real tokenizer, tests a simple deterministic one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.scopes import ScopeRef

RENDERER = "deterministic/1"
MAX_BUDGET_TOKENS = 32_000
DEFAULT_LINE_CHARS = 240
MIN_LINE_CHARS = 20
ELLIPSIS = "…"
PINNED_SECTION = "Pinned"

# Guiding knowledge before transient: sections follow each kind's default importance
# (kinds.py), so when the total budget runs out the cut falls on what matters least.
SECTIONS: tuple[tuple[MemoryKind, str], ...] = (
    (MemoryKind.IDENTITY, "Identity"),
    (MemoryKind.DECISION, "Decisions"),
    (MemoryKind.PREFERENCE, "Preferences"),
    (MemoryKind.GOAL, "Goals"),
    (MemoryKind.PROCEDURE, "Procedures"),
    (MemoryKind.FACT, "Facts"),
    (MemoryKind.TODO, "Todos"),
    (MemoryKind.EVENT, "Events"),
    (MemoryKind.OBSERVATION, "Observations"),
)

# A memory line starts with its id in brackets: "- [<id>] ...".
MEMORY_LINE_ID = re.compile(r"^- \[([^\]\s]+)\]", re.MULTILINE)

CountTokens = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class BulletinBudget:
    total_tokens: int
    per_section_tokens: int
    line_chars: int = DEFAULT_LINE_CHARS  # a body longer than this is trimmed with "…"

    def __post_init__(self) -> None:
        problems = [
            *_range_problem("total_tokens", self.total_tokens, 1, MAX_BUDGET_TOKENS),
            *_range_problem("per_section_tokens", self.per_section_tokens, 1, MAX_BUDGET_TOKENS),
            *_range_problem("line_chars", self.line_chars, MIN_LINE_CHARS, 4000),
        ]
        if problems:
            raise InvalidInput(problems)


@dataclass(frozen=True, slots=True)
class Bulletin:
    scope_key: str
    text: str  # never holds generated_at, so it is byte-stable while inputs are unchanged
    token_count: int  # count_tokens(text)
    generated_at: datetime
    renderer: str
    sources: tuple[tuple[str, int], ...]  # every input (memory id, revision), sorted
    shown_ids: tuple[str, ...]  # in the order they appear in the text
    fingerprint: str  # bulletin_fingerprint of the inputs
    pinned_over_budget: bool = False  # pinned memories alone exceed total_tokens; all shown


def render_bulletin(
    scope: ScopeRef,
    memories: Sequence[Memory],
    *,
    superseded: set[str],
    count_tokens: CountTokens,
    budget: BulletinBudget,
    generated_at: datetime,
    fingerprint: str | None = None,
) -> Bulletin:
    """Pinned first and never cut; then typed sections, each within its own and the total budget.

    Left out: superseded, forgotten, expired at generated_at, and memories of another scope.
    Within a section: importance desc, then updated_at desc, then id. A section shows a prefix
    of its ordered memories (the first line that does not fit ends it), so "N of M shown"
    always means the top N. `fingerprint`: the inputs' fingerprint when the caller took it
    over more than these memories (else computed from them).
    """
    latest = latest_revisions(memories)
    shown_in = [m for m in latest if _belongs(m, scope, superseded, generated_at)]
    pinned = ordered_for_bulletin(m for m in shown_in if m.pinned)
    blocks = _opening(scope, pinned, budget)
    over_budget = count_tokens("\n".join(blocks)) > budget.total_tokens
    if over_budget and not pinned:
        blocks = []  # a budget too small for the title alone
    shown = [m.id for m in pinned]
    for kind, title in SECTIONS:
        members = ordered_for_bulletin(m for m in shown_in if m.kind is kind and not m.pinned)
        shown += _add_section(blocks, title, members, count_tokens, budget)
    text = "\n".join(blocks)
    return Bulletin(
        scope_key=scope.key,
        text=text,
        token_count=count_tokens(text),
        generated_at=generated_at,
        renderer=RENDERER,
        sources=source_refs(latest),
        shown_ids=tuple(shown),
        fingerprint=fingerprint or bulletin_fingerprint(memories, superseded, now=generated_at),
        pinned_over_budget=over_budget and bool(pinned),
    )


def bulletin_fingerprint(
    memories: Iterable[Memory],
    superseded: set[str],
    *,
    now: datetime | None = None,
    superseded_publicly: AbstractSet[str] = frozenset(),
) -> str:
    """sha256 over the renderer, sorted (id, revision) and the superseded ids among the inputs
    (and those superseded for the public audience, when given).

    Equal fingerprints mean an identical render, so the service may skip it. Superseded ids
    outside the inputs cannot change the text and are ignored. Expiry changes the text with
    no new revision, so with `now` the ids expired at that moment are covered too.
    """
    latest = latest_revisions(memories)
    ids = {m.id for m in latest}
    digest = hashlib.sha256(f"{RENDERER}\n".encode())
    for memory_id, revision in source_refs(latest):
        digest.update(f"m {memory_id} {revision}\n".encode())
    for memory_id in sorted(superseded & ids):
        digest.update(f"s {memory_id}\n".encode())
    for memory_id in sorted(superseded_publicly & ids):
        digest.update(f"p {memory_id}\n".encode())
    for memory_id in sorted(m.id for m in latest if now is not None and m.is_expired(now)):
        digest.update(f"x {memory_id}\n".encode())
    return digest.hexdigest()


def next_expiry(memories: Iterable[Memory], now: datetime) -> datetime | None:
    """The next moment a live input expires: the service marks the scope changed then."""
    upcoming = [m.expires_at for m in memories if m.expires_at is not None and m.expires_at > now]
    return min(upcoming, default=None)


def ids_in_bulletin(text: str) -> list[str]:
    """The memory ids of the memory lines in a rendered text, in order."""
    return MEMORY_LINE_ID.findall(text)


def memory_line(memory: Memory, max_chars: int, *, with_kind: bool = False) -> str:
    kind = f"({memory.kind.value}) " if with_kind else ""
    return f"- [{memory.id}] {kind}{one_line(memory.body, max_chars)}"


def one_line(body: str, max_chars: int) -> str:
    """Whitespace collapsed so a body can never start a line of its own; trimmed with '…'."""
    flat = " ".join(body.split())
    if len(flat) <= max_chars:
        return flat
    return flat[: max_chars - len(ELLIPSIS)].rstrip() + ELLIPSIS


def section_block(title: str, lines: Sequence[str], total: int) -> str:
    return "\n".join([f"## {title} ({len(lines)} of {total} shown)", *lines])


def ordered_for_bulletin(memories: Iterable[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: (-m.importance, -m.updated_at.timestamp(), m.id))


def latest_revisions(memories: Iterable[Memory]) -> list[Memory]:
    """One memory per id (its highest revision), sorted by id, so input order cannot matter."""
    latest: dict[str, Memory] = {}
    for memory in memories:
        held = latest.get(memory.id)
        if held is None or (memory.revision, memory.updated_at) > (held.revision, held.updated_at):
            latest[memory.id] = memory
    return [latest[memory_id] for memory_id in sorted(latest)]


def source_refs(memories: Iterable[Memory]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((m.id, m.revision) for m in memories))


def _opening(scope: ScopeRef, pinned: Sequence[Memory], budget: BulletinBudget) -> list[str]:
    """The title and the pinned section: shown whatever the budget, as pinned are never cut."""
    blocks = [f"# Memory bulletin: {scope.key}"]
    if pinned:
        lines = [memory_line(m, budget.line_chars, with_kind=True) for m in pinned]
        blocks.append(section_block(PINNED_SECTION, lines, len(pinned)))
    return blocks


def _add_section(
    blocks: list[str],
    title: str,
    members: Sequence[Memory],
    count_tokens: CountTokens,
    budget: BulletinBudget,
) -> list[str]:
    """Append the longest fitting prefix of a section (a bare "0 of M" header if only it fits)."""
    if not members:
        return []
    lines = [memory_line(m, budget.line_chars) for m in members]
    best: str | None = None
    shown = 0
    for n in range(len(lines) + 1):
        block = section_block(title, lines[:n], len(lines))
        if not _fits(blocks, block, count_tokens, budget):
            break
        best, shown = block, n
    if best is not None:
        blocks.append(best)
    return [m.id for m in members[:shown]]


def _fits(blocks: list[str], block: str, count_tokens: CountTokens, budget: BulletinBudget) -> bool:
    return (
        count_tokens(block) <= budget.per_section_tokens
        and count_tokens("\n".join([*blocks, block])) <= budget.total_tokens
    )


def _belongs(memory: Memory, scope: ScopeRef, superseded: set[str], now: datetime) -> bool:
    return memory.scope_ref == scope and memory.id not in superseded and memory.is_live(now)


def _range_problem(field: str, value: object, low: int, high: int) -> list[FieldProblem]:
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return []
    return [FieldProblem(field, f"must be an integer {low}..{high}, got {value!r}")]
