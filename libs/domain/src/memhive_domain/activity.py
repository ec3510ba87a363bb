"""Recent activity: what was saved, updated, forgotten, linked and recalled, newest first,
read from the log, and what of it a caller may see.

The log holds every workspace's events, including memories the caller may not read (another
agent's LOCAL node, a private memory for a viewer). An entry is shown only as far as its
memories pass the same filter recall applies (`MemoryFilter` from `view_of`): the memory
the event carries (saved, updated, forgotten) or, where the event carries only ids (linked,
recalled), the record. Memories that are gone (forgotten, expired) keep their entries but
lose their text; a viewer also needs the record to be public now (visibility may have
changed since the event). A recall's query is its author's own: only they see it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from memhive_domain.edges import Edge
from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter, view_of
from memhive_domain.scopes import ScopeRef, Visibility, parse_scope_path
from memhive_domain.text import is_encodable
from memhive_domain.time_range import checked_moment

DEFAULT_PAGE = 20
MAX_PAGE = 100
SUMMARY_CHARS = 200
MAX_CURSOR_CHARS = 64
_CURSOR_PREFIX = "a1."


class ActivityKind(StrEnum):
    SAVED = "saved"
    UPDATED = "updated"  # any later revision: body, tags, flags, confirmations, promotion...
    FORGOTTEN = "forgotten"
    LINKED = "linked"
    RECALLED = "recalled"


@dataclass(frozen=True, slots=True)
class ActivityPosition:
    """Where a read of the log continues: an exclusive upper bound per stream (the log of
    memory events, the recall activity); None: from the newest; 0: nothing older left."""

    log: int | None = None
    recalls: int | None = None

    @property
    def is_end(self) -> bool:
        return self.log == 0 and self.recalls == 0


@dataclass(frozen=True, slots=True)
class ActivityEvent:
    """One event as the log holds it (nothing checked yet)."""

    kind: ActivityKind
    time: datetime  # when the log stored it
    actor: str  # who asked for it ("" when the log does not say)
    memory: Memory | None = None  # saved, updated, forgotten: the revision the event carries
    edges: tuple[Edge, ...] = ()  # linked
    memory_ids: tuple[str, ...] = ()  # recalled
    query: str = ""  # recalled
    reason: str = ""  # forgotten
    resume: ActivityPosition = field(default_factory=ActivityPosition)  # read on after this

    @property
    def memory_ids_read(self) -> tuple[str, ...]:
        """The ids whose records decide what of this event may be shown."""
        if self.memory is not None:
            return (self.memory.id,)
        return tuple(i for e in self.edges for i in (e.src_id, e.dst_id)) + self.memory_ids


@dataclass(frozen=True, slots=True)
class ActivityMemory:
    """A memory as an entry shows it: `summary` is None once the memory is gone."""

    id: str
    kind: str
    scope_path: str
    revision: int
    summary: str | None


@dataclass(frozen=True, slots=True)
class ActivityEntry:
    kind: ActivityKind
    time: datetime
    actor: str
    memories: tuple[ActivityMemory, ...]
    edges: tuple[Edge, ...] = ()
    query: str | None = None  # the recall's query, for its author only
    reason: str | None = None  # why it was forgotten


@dataclass(frozen=True, slots=True)
class ActivityQuery:
    filter: MemoryFilter  # the caller's view, narrowed to a node when asked
    kinds: frozenset[ActivityKind]
    since: datetime | None
    limit: int
    start: ActivityPosition


def plan_activity(
    principal: Principal,
    *,
    scope: str | None,
    kinds: Sequence[str] | None,
    since: datetime | None,
    limit: int,
    cursor: str | None,
) -> ActivityQuery:
    """Every problem at once (InvalidInput); a node outside the caller's view is NotAllowed."""
    problems: list[FieldProblem] = []
    node = _node(scope, problems)
    parsed = _kinds(kinds, problems)
    if isinstance(since, datetime) and since.tzinfo is None:
        problems.append(FieldProblem("since", "needs a time zone (e.g. Z)"))
    else:
        since = checked_moment("since", since, problems)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        problems.append(FieldProblem("limit", f"must be 1..{MAX_PAGE}"))
    start = decode_cursor(cursor, problems)
    if problems:
        raise InvalidInput(problems)
    view = view_of(principal, node)
    if node is not None and view.view is not None and not view.view.admits(node):
        raise NotAllowed(f"scope {node.key!r} is outside this token's scope tree")
    return ActivityQuery(view, parsed, since, limit, start)


def shown(
    event: ActivityEvent,
    records: Mapping[str, Memory],
    query: ActivityQuery,
    principal: Principal,
    now: datetime,
) -> ActivityEntry | None:
    """What of the event the caller may see, or None when nothing (or not of the kinds and
    node asked for). `records`: the current record of each of `event.memory_ids_read`."""
    if event.kind not in query.kinds:
        return None
    f = query.filter
    memories, edges = _shown_parts(event, records, f)
    if not memories or (f.node is not None and all(m.scope_ref != f.node for m in memories)):
        return None
    own = event.kind is ActivityKind.RECALLED and _own(event, principal)
    return ActivityEntry(
        kind=event.kind,
        time=event.time,
        actor=event.actor,
        memories=tuple(_shown_memory(m, records.get(m.id), now) for m in memories),
        edges=edges,
        query=event.query if own else None,
        reason=event.reason if event.kind is ActivityKind.FORGOTTEN else None,
    )


def _shown_parts(
    event: ActivityEvent, records: Mapping[str, Memory], f: MemoryFilter
) -> tuple[list[Memory], tuple[Edge, ...]]:
    """The event's memories the caller reads and, for a link, the edges whose both ends it
    reads; the event's own memory where it carries one, else the records."""
    if event.memory is not None:
        return _readable([event.memory], records, f), ()
    ends = [records[i] for i in event.memory_ids_read if i in records]
    readable = {m.id for m in _readable(ends, records, f)}
    edges = tuple(e for e in event.edges if {e.src_id, e.dst_id} <= readable)
    wanted = {i for e in edges for i in (e.src_id, e.dst_id)} | set(event.memory_ids)
    return [m for m in _unique(ends) if m.id in readable and m.id in wanted], edges


def _readable(
    memories: Sequence[Memory], records: Mapping[str, Memory], f: MemoryFilter
) -> list[Memory]:
    """In the caller's part of the tree (live or not), and public now for a viewer."""
    return [
        m
        for m in memories
        if m.workspace_id == f.workspace_id
        and (f.view is None or f.view.admits(m.scope_ref))
        and (not f.public_only or _public(m, records.get(m.id)))
    ]


def _public(memory: Memory, record: Memory | None) -> bool:
    return (
        memory.visibility is Visibility.PUBLIC
        and record is not None
        and record.visibility is Visibility.PUBLIC
    )


def _shown_memory(memory: Memory, record: Memory | None, now: datetime) -> ActivityMemory:
    live = record is not None and record.is_live(now) and memory.is_live(now)
    summary = _summary(memory.body) if live else None
    return ActivityMemory(
        memory.id, memory.kind.value, memory.scope_ref.key, memory.revision, summary
    )


def _summary(body: str) -> str:
    flat = " ".join(body.split())
    return flat if len(flat) <= SUMMARY_CHARS else flat[: SUMMARY_CHARS - 1] + "…"


def _own(event: ActivityEvent, principal: Principal) -> bool:
    return bool(event.actor) and event.actor == principal.user_id


def _unique(memories: Sequence[Memory]) -> list[Memory]:
    return list({m.id: m for m in memories}.values())


def _node(scope: str | None, problems: list[FieldProblem]) -> ScopeRef | None:
    if scope is None or scope == "":
        return None
    if not is_encodable(scope):
        problems.append(FieldProblem("scope", "must be a node of the scope tree"))
        return None
    return parse_scope_path(scope, problems, "scope")


def _kinds(kinds: Sequence[str] | None, problems: list[FieldProblem]) -> frozenset[ActivityKind]:
    if not kinds:
        return frozenset(ActivityKind)
    try:
        return frozenset(ActivityKind(k) for k in kinds)
    except ValueError:
        problems.append(FieldProblem("kind", f"each one of {', '.join(ActivityKind)}"))
        return frozenset()


def encode_cursor(position: ActivityPosition) -> str:
    raw = f"{_bound(position.log)}:{_bound(position.recalls)}".encode()
    return _CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, problems: list[FieldProblem]) -> ActivityPosition:
    if not cursor:
        return ActivityPosition()
    try:
        if not cursor.startswith(_CURSOR_PREFIX) or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError(cursor)
        raw = cursor.removeprefix(_CURSOR_PREFIX)
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("ascii")
        log, recalls = (_parse_bound(part) for part in text.split(":"))
        return ActivityPosition(log, recalls)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        problems.append(FieldProblem("cursor", "is not a cursor this API returned"))
        return ActivityPosition()


def _bound(value: int | None) -> str:
    return "" if value is None else str(value)


def _parse_bound(text: str) -> int | None:
    if text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) >= 2**63:
        raise ValueError(text)
    return int(text)


def with_resume(event: ActivityEvent, resume: ActivityPosition) -> ActivityEvent:
    return replace(event, resume=resume)
