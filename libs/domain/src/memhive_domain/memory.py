"""The memory node: what an agent remembers, and the rules for creating and changing it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from memhive_domain.curation import Curation, author_kind_of
from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import DEFAULT_IMPORTANCE, MemoryKind
from memhive_domain.mentions import Mentions, mentions_of
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import default_visibility, home_of
from memhive_domain.scopes import (
    Scope,
    ScopeRef,
    Visibility,
    parse_scope_path,
    resolve_scope,
    scope_problems,
)
from memhive_domain.sources import Source
from memhive_domain.text import checked_text, string_problems
from memhive_domain.time_range import checked_moment

MAX_BODY_CHARS = 4000
MAX_TAGS = 32
MAX_SOURCE_REF_CHARS = 512
TAG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._:/-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    workspace_id: str
    kind: MemoryKind
    body: str
    importance: float
    pinned: bool
    tags: tuple[str, ...]
    scope: Scope
    product_id: str | None
    visibility: Visibility
    source: Source
    source_ref: str | None
    created_by: str
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    revision: int = 1
    access_count: int = 0
    last_accessed_at: datetime | None = None
    forgotten: bool = False
    forgotten_at: datetime | None = None
    team_id: str | None = None  # with agent_id: the node below the product (or the root)
    agent_id: str | None = None
    curation: Curation = Curation()  # flags, confirmations, corrections, promotion, author
    occurred_at: datetime | None = None  # when the remembered thing happened, if said
    # What the body names (speaker, people, times), read when it is written; None for
    # records written before it was kept (`names` reads them from the body then). Derived
    # from body and occurred, so left out of equality: a record is the same memory whether
    # they were kept or not (a restore, a no-op change).
    mentions: Mentions | None = field(default=None, compare=False)

    @property
    def occurred(self) -> datetime:
        """When it happened: as the author said, else when it was saved."""
        return self.occurred_at or self.created_at

    @property
    def names(self) -> Mentions:
        """What the body names: as kept with the record, else read now."""
        return self.mentions or mentions_of(self.body, self.occurred)

    @property
    def scope_ref(self) -> ScopeRef:
        """The node of the scope tree the memory lives at."""
        return ScopeRef(self.scope, self.product_id, self.team_id, self.agent_id)

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def is_live(self, now: datetime) -> bool:
        """Recallable at all: not forgotten and not past its expiry."""
        return not self.forgotten and not self.is_expired(now)


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """What a caller asks to remember, before any rule has been checked.

    Enum fields accept their string values too, so every entry point (REST, MCP,
    bus events from hooks in other languages) gets the same messages.
    """

    kind: MemoryKind | str
    body: str
    importance: float | None = None
    pinned: bool = False
    tags: Sequence[str] = ()
    scope: Scope | str | None = None
    product_id: str | None = None
    scope_path: str | None = None  # the node as a path; scope/product_id, if also given, agree
    visibility: Visibility | str | None = None  # None: inherited (see default_visibility)
    source: Source | str = Source.AGENT
    source_ref: str | None = None
    expires_at: datetime | None = None
    occurred_at: datetime | None = None  # when it happened; None: when it is saved


def create_memory(
    draft: MemoryDraft,
    *,
    memory_id: str,
    principal: Principal,
    now: datetime,
    product_visibility: Visibility | None = None,
    read_mentions: bool = True,
) -> Memory:
    """Validate a draft and build revision 1; raises InvalidInput listing every problem.

    A draft without a node goes to the principal's home; one without a visibility takes
    `default_visibility` (`product_visibility` is its product's, when the product has a record).
    `read_mentions` False: a check whose memory is not kept (an import's plan) leaves out
    reading what the body names, nearly half the cost (`Memory.names` reads it if asked).
    """
    problems: list[FieldProblem] = []
    kind = parse_enum(MemoryKind, draft.kind, "kind", problems)
    node = draft_node(draft, principal, problems)
    visibility = None
    if draft.visibility is not None:
        visibility = parse_enum(Visibility, draft.visibility, "visibility", problems)
    elif node is not None:
        visibility = default_visibility(node, product_visibility)
    source = parse_enum(Source, draft.source, "source", problems)
    body = normalise_body(draft.body, problems)
    tags = normalise_tags(draft.tags, problems)
    importance = check_importance(draft.importance, kind, problems)
    if not isinstance(draft.pinned, bool):  # bool("false") is True
        problems.append(FieldProblem("pinned", f"must be true or false, got {draft.pinned!r}"))
    expires_at = check_expiry(draft.expires_at, now, problems)
    occurred_at = checked_moment("occurred_at", draft.occurred_at, problems)
    source_ref = _check_source_ref(draft.source_ref, problems)
    if problems:
        raise InvalidInput(problems)
    assert kind and visibility and source and node  # narrowed: no problems means all parsed
    return Memory(
        id=memory_id,
        workspace_id=principal.workspace_id,
        kind=kind,
        body=body,
        importance=importance,
        pinned=draft.pinned,
        tags=tags,
        scope=node.scope,
        product_id=node.product_id,
        team_id=node.team_id,
        agent_id=node.agent_id,
        visibility=visibility,
        source=source,
        source_ref=source_ref,
        created_by=principal.user_id,
        expires_at=expires_at,
        occurred_at=occurred_at,
        created_at=now,
        updated_at=now,
        curation=Curation(author_kind=author_kind_of(principal, source)),
        mentions=mentions_of(body, occurred_at or now) if read_mentions else None,
    )


def draft_node(
    draft: MemoryDraft, principal: Principal, problems: list[FieldProblem]
) -> ScopeRef | None:
    """The node a draft names (scope_path, or scope/product_id), else the principal's home."""
    return node_of(draft.scope, draft.product_id, draft.scope_path, problems) or (
        home_of(principal) if _names_no_node(draft) else None
    )


def inheriting_product(draft: MemoryDraft, principal: Principal) -> str | None:
    """The product whose record decides the draft's visibility: set only when the draft
    gives none and lives in a product (the caller looks the product up, then create_memory)."""
    if draft.visibility is not None:
        return None
    node = draft_node(draft, principal, [])
    return node.product_id if node is not None and not node.is_local else None


def node_of(
    scope: Scope | str | None,
    product_id: str | None,
    scope_path: str | None,
    problems: list[FieldProblem],
) -> ScopeRef | None:
    """The node a request names, or None when it names none (or names it badly: then a
    problem is appended). scope_path wins; scope/product_id given with it must agree."""
    product_id = product_id or None
    parsed = None if scope is None else parse_enum(Scope, scope, "scope", problems)
    if scope is not None and parsed is None:
        return None
    if scope_path:
        node = parse_scope_path(scope_path, problems)
        if node is not None and (
            (parsed is not None and parsed is not node.scope)
            or (product_id is not None and product_id != node.product_id)
        ):
            problems.append(FieldProblem("scope_path", "disagrees with scope/product_id"))
            return None
        return node
    if parsed is None and product_id is None:
        return None
    resolved = resolve_scope(parsed, product_id)
    if found := scope_problems(resolved, product_id):
        problems += found
        return None
    return ScopeRef(resolved, product_id)


def _names_no_node(draft: MemoryDraft) -> bool:
    return draft.scope is None and not draft.product_id and not draft.scope_path


def forget(memory: Memory, now: datetime) -> Memory:
    """Soft-forget: the record keeps its history; every index drops it."""
    if memory.forgotten:
        return memory
    return replace(
        memory, forgotten=True, forgotten_at=now, updated_at=now, revision=memory.revision + 1
    )


def set_pinned(memory: Memory, pinned: bool, now: datetime) -> Memory:
    """Pinning changes what a scope's bulletin leads with: a new revision, unless unchanged."""
    if memory.pinned == pinned:
        return memory
    return replace(memory, pinned=pinned, updated_at=now, revision=memory.revision + 1)


def record_access(memory: Memory, hits: int, last_at: datetime) -> Memory:
    """Access statistics are bookkeeping, not a change of meaning: no new revision."""
    latest = max(filter(None, (memory.last_accessed_at, last_at)))
    return replace(memory, access_count=memory.access_count + hits, last_accessed_at=latest)


def normalise_body(body: str, problems: list[FieldProblem]) -> str:
    """Stripped; must be valid Unicode with something visible, at most MAX_BODY_CHARS."""
    return checked_text("body", body, MAX_BODY_CHARS, problems, required=True)


def normalise_tags(
    tags: Sequence[str], problems: list[FieldProblem], field: str = "tags"
) -> tuple[str, ...]:
    if isinstance(tags, str):
        problems.append(FieldProblem(field, "must be a list of strings, not one string"))
        return ()
    # Counted as sent (what a JSON schema's maxItems states), before any work per tag.
    if len(tags) > MAX_TAGS:
        problems.append(FieldProblem(field, f"at most {MAX_TAGS} tags, got {len(tags)}"))
        return ()
    if bad_strings := string_problems(field, tags):
        problems += bad_strings
        return ()
    cleaned = tuple(dict.fromkeys(t.strip().lower() for t in tags))
    bad = [t for t in cleaned if not TAG_PATTERN.match(t)]
    if bad:
        problems.append(
            FieldProblem(
                field,
                f"invalid tag(s) {bad}: use 1-64 lowercase letters, digits or . _ : / - "
                "starting with a letter or digit",
            )
        )
    return cleaned


def check_importance(
    importance: float | None, kind: MemoryKind | None, problems: list[FieldProblem]
) -> float:
    if importance is None:
        return DEFAULT_IMPORTANCE.get(kind, 0.5) if kind else 0.5
    if (
        isinstance(importance, bool)  # True is an int to Python, not an importance
        or not isinstance(importance, int | float)
        or not 0.0 <= float(importance) <= 1.0
    ):
        problems.append(FieldProblem("importance", f"must be between 0 and 1, got {importance!r}"))
        return 0.5
    return float(importance)


def check_expiry(
    expires_at: datetime | None, now: datetime, problems: list[FieldProblem]
) -> datetime | None:
    if expires_at is None:
        return None
    moment = checked_moment("expires_at", expires_at, problems)
    if moment is None:
        return None
    if moment <= now:
        problems.append(FieldProblem("expires_at", "is in the past; give a future time or omit it"))
    return moment


def _check_source_ref(source_ref: str | None, problems: list[FieldProblem]) -> str | None:
    return (
        checked_text("source_ref", source_ref, MAX_SOURCE_REF_CHARS, problems, required=False)
        or None
    )
