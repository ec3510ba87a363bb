"""The memory node: what an agent remembers, and the rules for creating and changing it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kinds import DEFAULT_IMPORTANCE, MemoryKind
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, ScopeRef, Visibility, resolve_scope, scope_problems
from memhive_domain.sources import Source

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

    @property
    def scope_ref(self) -> ScopeRef:
        return ScopeRef(self.scope, self.product_id)

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
    visibility: Visibility | str = Visibility.PRIVATE
    source: Source | str = Source.AGENT
    source_ref: str | None = None
    expires_at: datetime | None = None


def create_memory(
    draft: MemoryDraft, *, memory_id: str, principal: Principal, now: datetime
) -> Memory:
    """Validate a draft and build revision 1; raises InvalidInput listing every problem."""
    problems: list[FieldProblem] = []
    kind = parse_enum(MemoryKind, draft.kind, "kind", problems)
    scope = parse_enum(Scope, draft.scope, "scope", problems) if draft.scope is not None else None
    visibility = parse_enum(Visibility, draft.visibility, "visibility", problems)
    source = parse_enum(Source, draft.source, "source", problems)
    body = normalise_body(draft.body, problems)
    tags = normalise_tags(draft.tags, problems)
    product_id = draft.product_id or None
    resolved_scope = resolve_scope(scope, product_id)
    problems += scope_problems(resolved_scope, product_id)
    importance = _check_importance(draft.importance, kind, problems)
    expires_at = _check_expiry(draft.expires_at, now, problems)
    source_ref = _check_source_ref(draft.source_ref, problems)
    if problems:
        raise InvalidInput(problems)
    assert kind and visibility and source  # narrowed: no problems means all parsed
    return Memory(
        id=memory_id,
        workspace_id=principal.workspace_id,
        kind=kind,
        body=body,
        importance=importance,
        pinned=bool(draft.pinned),
        tags=tags,
        scope=resolved_scope,
        product_id=product_id,
        visibility=visibility,
        source=source,
        source_ref=source_ref,
        created_by=principal.user_id,
        expires_at=expires_at,
        created_at=now,
        updated_at=now,
    )


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
    text = (body or "").strip()
    if not text:
        problems.append(FieldProblem("body", "must not be empty"))
    elif len(text) > MAX_BODY_CHARS:
        problems.append(
            FieldProblem("body", f"is {len(text)} characters; the maximum is {MAX_BODY_CHARS}")
        )
    return text


def normalise_tags(tags: Sequence[str], problems: list[FieldProblem]) -> tuple[str, ...]:
    if isinstance(tags, str):
        problems.append(FieldProblem("tags", "must be a list of strings, not one string"))
        return ()
    cleaned = tuple(dict.fromkeys(str(t).strip().lower() for t in tags))
    bad = [t for t in cleaned if not TAG_PATTERN.match(t)]
    if bad:
        problems.append(
            FieldProblem(
                "tags",
                f"invalid tag(s) {bad}: use 1-64 lowercase letters, digits or . _ : / - "
                "starting with a letter or digit",
            )
        )
    if len(cleaned) > MAX_TAGS:
        problems.append(FieldProblem("tags", f"at most {MAX_TAGS} tags, got {len(cleaned)}"))
    return cleaned


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes from callers are taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _check_importance(
    importance: float | None, kind: MemoryKind | None, problems: list[FieldProblem]
) -> float:
    if importance is None:
        return DEFAULT_IMPORTANCE.get(kind, 0.5) if kind else 0.5
    if not isinstance(importance, int | float) or not 0.0 <= float(importance) <= 1.0:
        problems.append(FieldProblem("importance", f"must be between 0 and 1, got {importance!r}"))
        return 0.5
    return float(importance)


def _check_expiry(
    expires_at: datetime | None, now: datetime, problems: list[FieldProblem]
) -> datetime | None:
    if expires_at is None:
        return None
    moment = as_utc(expires_at)
    if moment <= now:
        problems.append(FieldProblem("expires_at", "is in the past; give a future time or omit it"))
    return moment


def _check_source_ref(source_ref: str | None, problems: list[FieldProblem]) -> str | None:
    ref = (source_ref or "").strip() or None
    if ref and len(ref) > MAX_SOURCE_REF_CHARS:
        problems.append(
            FieldProblem("source_ref", f"is longer than {MAX_SOURCE_REF_CHARS} characters")
        )
    return ref
