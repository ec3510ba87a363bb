"""Consolidation: several memories of one node become one new memory that `updates` each of
them (so recall serves the new one in their place, and their history stays auditable).

The new memory's attributes come from its sources unless the caller gives them: the sources'
node, their kind when they share one, the highest importance, the union of their tags, and
private if any source is private (consolidating must never publish a private memory).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import MAX_BODY_CHARS, MAX_TAGS, Memory, MemoryDraft
from memhive_domain.scopes import Visibility
from memhive_domain.text import id_list_problems

MIN_SOURCES, MAX_SOURCES = 2, 20


@dataclass(frozen=True, slots=True)
class ConsolidationRequest:
    ids: Sequence[str]
    body: str | None = None  # None: summarised by the LLM, when one is configured
    kind: MemoryKind | str | None = None
    importance: float | None = None
    tags: Sequence[str] | None = None


def source_ids(request: ConsolidationRequest) -> list[str]:
    """The distinct ids to consolidate, 2..20 of them; raises InvalidInput naming `ids`."""
    ids = list(request.ids) if isinstance(request.ids, list | tuple) else request.ids
    if problems := id_list_problems("ids", ids, MAX_SOURCES):
        raise InvalidInput(problems)
    distinct = list(dict.fromkeys(ids))
    if len(distinct) < MIN_SOURCES:
        raise InvalidInput([FieldProblem("ids", f"give {MIN_SOURCES} to {MAX_SOURCES} ids")])
    return distinct


def consolidated_draft(
    sources: Sequence[Memory], request: ConsolidationRequest, body: str
) -> MemoryDraft:
    """The new memory's draft (checked later by create_memory like any save)."""
    nodes = {m.scope_ref for m in sources}
    if len(nodes) != 1:
        raise InvalidInput([FieldProblem("ids", "the memories must all live at one scope node")])
    kinds = {m.kind for m in sources}
    kind = request.kind or (kinds.pop() if len(kinds) == 1 else None)
    if kind is None:
        raise InvalidInput([FieldProblem("kind", "the memories differ in kind: give one")])
    node = nodes.pop()
    private = any(m.visibility is Visibility.PRIVATE for m in sources)
    tags = request.tags if request.tags is not None else _union_tags(sources)
    return MemoryDraft(
        kind=kind,
        body=body,
        importance=request.importance
        if request.importance is not None
        else max(m.importance for m in sources),
        pinned=any(m.pinned for m in sources),
        tags=tuple(tags),
        scope_path=node.key,
        visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
    )


def summary_messages(sources: Sequence[Memory]) -> list[dict[str, str]]:
    """The chat asked for one statement covering every source (no ids: nothing to invent)."""
    listed = "\n".join(f"- ({m.kind.value}) {m.body}" for m in sources)
    return [
        {
            "role": "system",
            "content": "You merge notes of a team's shared memory into one self-contained "
            f"statement of at most {MAX_BODY_CHARS} characters. Keep every fact that is still "
            "true, prefer the newer wording when notes disagree, add nothing. Answer with the "
            "statement only.",
        },
        {"role": "user", "content": listed},
    ]


def _union_tags(sources: Sequence[Memory]) -> list[str]:
    return list(dict.fromkeys(t for m in sources for t in m.tags))[:MAX_TAGS]
