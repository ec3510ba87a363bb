"""Upstream lifecycle events (issues, comments, jobs, notes, knowledge) and the memories
they become.

Every memory made here is keyed on its source_ref: the same issue, decision or snapshot
entry always maps to the same memory id, so a redelivered or replayed event revises (or
leaves alone) the memory it made before instead of adding a duplicate.

Upstream memories carry the source's clock: created_at and updated_at are the event's
occurred_at (never later than now), so an update delivered out of order can be recognised
as older than what is stored and must not roll the memory back.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Literal

from memhive_domain.kinds import MemoryKind
from memhive_domain.markdown_text import collapse_whitespace, plain_text, truncate_words
from memhive_domain.memory import (
    MAX_BODY_CHARS,
    MAX_TAGS,
    TAG_PATTERN,
    Memory,
    MemoryDraft,
    create_memory,
)
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, ScopeRef, Visibility
from memhive_domain.sources import Source
from memhive_domain.time_range import as_utc

# Fixed forever: changing it would re-key every upstream memory and duplicate them all.
UPSTREAM_NAMESPACE = uuid.UUID("6f0c1f6e-3d4b-5a7e-9c1d-2b8e4f5a6c70")
# Who made a memory when the event names nobody.
UPSTREAM_AUTHOR = "upstream"

_NOT_TAG_CHARS = re.compile(r"[^a-z0-9._:/-]+")
_SENTENCE_END = (".", "!", "?", "…", ":")


class JobOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class IssueEvent:
    """An issue as it is at occurred_at, in full: both created and updated carry this."""

    event_id: str
    workspace_id: str
    issue_id: str
    title: str
    description: str
    status: str
    labels: tuple[str, ...]
    product_id: str | None
    author: str
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class IssueCreated(IssueEvent):
    pass


@dataclass(frozen=True, slots=True)
class IssueUpdated(IssueEvent):
    pass


@dataclass(frozen=True, slots=True)
class CommentCreated:
    event_id: str
    workspace_id: str
    comment_id: str
    issue_id: str
    body: str
    author: str
    product_id: str | None
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class ResolvedError:
    error: str
    resolution: str


@dataclass(frozen=True, slots=True)
class SessionContext:
    decisions: tuple[str, ...] = ()
    resolved_errors: tuple[ResolvedError, ...] = ()
    files_modified: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobCompleted:
    event_id: str
    workspace_id: str
    job_id: str
    outcome: JobOutcome
    stdout_excerpt: str
    session: SessionContext
    product_id: str | None
    author: str
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class NoteAdded:
    event_id: str
    workspace_id: str
    note_id: str
    title: str
    body: str
    tags: tuple[str, ...]
    product_id: str | None
    author: str
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class KeyFile:
    path: str
    purpose: str


@dataclass(frozen=True, slots=True)
class Procedure:
    title: str
    steps: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KnowledgeSnapshot:
    event_id: str
    workspace_id: str
    snapshot_id: str
    product_id: str | None
    architecture_notes: tuple[str, ...]
    key_files: tuple[KeyFile, ...]
    conventions: tuple[str, ...]
    procedures: tuple[Procedure, ...]
    occurred_at: datetime
    author: str = ""


UpstreamEvent = IssueEvent | CommentCreated | JobCompleted | NoteAdded | KnowledgeSnapshot

RevisionDecision = Literal["create", "revise", "unchanged", "stale"]


@dataclass(frozen=True, slots=True)
class UpstreamMemory:
    """A memory an upstream event asks for, with the id its source_ref always maps to."""

    memory_id: str
    workspace_id: str
    draft: MemoryDraft
    occurred_at: datetime
    event_id: str
    author: str

    @property
    def source_ref(self) -> str:
        assert self.draft.source_ref is not None  # every upstream draft has one
        return self.draft.source_ref


def upstream_memory_id(workspace_id: str, source_ref: str) -> str:
    return str(uuid.uuid5(UPSTREAM_NAMESPACE, f"{workspace_id}/{source_ref}"))


def memories_from(event: UpstreamEvent) -> list[UpstreamMemory]:
    """The memories one event stands for, in a stable order; empty texts make none."""
    match event:
        case IssueEvent():
            found = [_issue_memory(event)]
        case CommentCreated():
            found = [_comment_memory(event)]
        case JobCompleted():
            found = _job_memories(event)
        case NoteAdded():
            found = [_note_memory(event)]
        case KnowledgeSnapshot():
            found = _knowledge_memories(event)
        case _:
            raise TypeError(f"not an upstream event: {type(event).__name__}")
    return [m for m in found if m is not None]


def tags_from_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Tracker labels made into valid tags ("Good first issue" -> "good-first-issue")."""
    tags = (_tag_from_label(label) for label in labels)
    return tuple(dict.fromkeys(t for t in tags if t))[:MAX_TAGS]


def revision_decision(current: Memory | None, incoming: UpstreamMemory) -> RevisionDecision:
    """What to do with an incoming upstream memory, given what the record holds for its id."""
    if current is None:
        return "create"
    if _same_meaning(current, incoming):
        return "unchanged"
    if as_utc(incoming.occurred_at) < current.updated_at:
        return "stale"  # delivered out of order: a newer revision is already stored
    return "revise"


def create_upstream_memory(
    incoming: UpstreamMemory, now: datetime, product_visibility: Visibility | None = None
) -> Memory:
    """Revision 1 of an upstream memory, stamped with the source's time; may raise InvalidInput.
    A product's memory takes `product_visibility` (its product's record), else private."""
    return create_memory(
        incoming.draft,
        memory_id=incoming.memory_id,
        principal=upstream_principal(incoming),
        now=source_time(incoming, now),
        product_visibility=product_visibility,
    )


def upstream_principal(incoming: UpstreamMemory) -> Principal:
    return Principal(incoming.workspace_id, incoming.author or UPSTREAM_AUTHOR)


def apply_revision(current: Memory, incoming: UpstreamMemory, now: datetime) -> Memory:
    """The next revision: new meaning, same id, creation time, author and access statistics.

    A forgotten memory stays forgotten: an upstream edit does not bring back what a
    person chose to forget.
    """
    fresh = create_upstream_memory(incoming, now)
    return replace(
        current,
        kind=fresh.kind,
        body=fresh.body,
        tags=fresh.tags,
        scope=fresh.scope,
        product_id=fresh.product_id,
        importance=current.importance if fresh.kind is current.kind else fresh.importance,
        revision=current.revision + 1,
        updated_at=max(current.updated_at, fresh.updated_at),
    )


def source_time(incoming: UpstreamMemory, now: datetime) -> datetime:
    """The event's time, capped at now: a hook with a clock running ahead must not make
    every later event look stale."""
    return min(as_utc(incoming.occurred_at), as_utc(now))


def _issue_memory(event: IssueEvent) -> UpstreamMemory | None:
    title, description = _one_line(event.title), plain_text(event.description)
    if not (title or description):
        return None
    status = _one_line(event.status)
    head = f"Issue {event.issue_id}: {title}" + (f" — {status}" if status else "")
    body = _join(_sentence(head), description)
    ref = f"issue:{event.issue_id}"
    return _upstream(event, MemoryKind.OBSERVATION, Source.ISSUE, ref, body, event.labels)


def _comment_memory(event: CommentCreated) -> UpstreamMemory | None:
    text = plain_text(event.body)
    if not text:
        return None
    by = f" by {_one_line(event.author)}" if _one_line(event.author) else ""
    body = f"Comment on issue {event.issue_id}{by}: {text}"
    ref = f"comment:{event.comment_id}"
    return _upstream(event, MemoryKind.OBSERVATION, Source.COMMENT, ref, body)


def _job_memories(event: JobCompleted) -> list[UpstreamMemory | None]:
    ref = f"job:{event.job_id}"
    decisions = [
        _upstream(event, MemoryKind.DECISION, Source.JOB, f"{ref}:decision:{n}", plain_text(d))
        for n, d in enumerate(event.session.decisions, start=1)
    ]
    errors = [
        _upstream(event, MemoryKind.OBSERVATION, Source.JOB, f"{ref}:error:{n}", _error_text(e))
        for n, e in enumerate(event.session.resolved_errors, start=1)
    ]
    summary = _upstream(event, MemoryKind.EVENT, Source.JOB, ref, _job_summary(event))
    return [*decisions, *errors, summary]


def _error_text(resolved: ResolvedError) -> str:
    error, resolution = plain_text(resolved.error), plain_text(resolved.resolution)
    if not error:
        return ""
    return _join(f"Error: {_sentence(error)}", f"Resolved by: {resolution}" if resolution else "")


def _job_summary(event: JobCompleted) -> str:
    files = [f for f in map(collapse_whitespace, event.session.files_modified) if f]
    output = collapse_whitespace(event.stdout_excerpt)  # a log, not markdown
    # Output goes last, so truncation cuts the log before the outcome or the files.
    return _join(
        f"Job {event.job_id} {event.outcome.value}.",
        f"Files modified: {', '.join(files)}." if files else "",
        f"Output: {output}" if output else "",
    )


def _note_memory(event: NoteAdded) -> UpstreamMemory | None:
    body = "\n".join(t for t in (_one_line(event.title), plain_text(event.body)) if t)
    ref = f"note:{event.note_id}"
    return _upstream(event, MemoryKind.FACT, Source.NOTE, ref, body, event.tags)


def _knowledge_memories(event: KnowledgeSnapshot) -> list[UpstreamMemory | None]:
    # Keyed on the product and the position, not the snapshot id, so the next snapshot of
    # the same product revises these memories.
    ref = f"knowledge:{ScopeRef(_scope(event.product_id), event.product_id).key}"
    return [
        *_numbered(event, MemoryKind.FACT, f"{ref}:architecture", event.architecture_notes),
        *_numbered(event, MemoryKind.FACT, f"{ref}:convention", event.conventions),
        *_numbered(event, MemoryKind.PROCEDURE, f"{ref}:procedure", event.procedures),
        _upstream(event, MemoryKind.FACT, Source.KNOWLEDGE, f"{ref}:key-files", _key_files(event)),
    ]


def _numbered(
    event: KnowledgeSnapshot, kind: MemoryKind, ref: str, entries: Iterable[str | Procedure]
) -> list[UpstreamMemory | None]:
    return [
        _upstream(event, kind, Source.KNOWLEDGE, f"{ref}:{n}", _entry_text(entry))
        for n, entry in enumerate(entries, start=1)
    ]


def _entry_text(entry: str | Procedure) -> str:
    if isinstance(entry, str):
        return plain_text(entry)
    steps = [s for s in map(_one_line, entry.steps) if s]
    numbered = [f"{n}. {step}" for n, step in enumerate(steps, start=1)]
    return "\n".join(t for t in (_one_line(entry.title), *numbered) if t)


def _key_files(event: KnowledgeSnapshot) -> str:
    # Paths stay as written: markdown rules would eat the underscores of __init__.py.
    lines = [
        _join(f"{collapse_whitespace(f.path)}:", _one_line(f.purpose)).rstrip(":")
        for f in event.key_files
        if collapse_whitespace(f.path)
    ]
    return "\n".join(["Key files:", *lines]) if lines else ""


def _upstream(
    event: UpstreamEvent,
    kind: MemoryKind,
    source: Source,
    source_ref: str,
    body: str,
    labels: Sequence[str] = (),
) -> UpstreamMemory | None:
    text = truncate_words(body.strip(), MAX_BODY_CHARS)
    if not text:
        return None
    draft = MemoryDraft(
        kind=kind,
        body=text,
        tags=tags_from_labels(labels),
        scope=_scope(event.product_id),
        product_id=event.product_id or None,
        # Tracker content is never public by default: a product's memories inherit the
        # product's visibility; without a product they stay private (not Hive's public).
        visibility=None if event.product_id else Visibility.PRIVATE,
        source=source,
        source_ref=source_ref,
        occurred_at=as_utc(event.occurred_at),
    )
    return UpstreamMemory(
        memory_id=upstream_memory_id(event.workspace_id, source_ref),
        workspace_id=event.workspace_id,
        draft=draft,
        occurred_at=as_utc(event.occurred_at),
        event_id=event.event_id,
        author=event.author,
    )


def _same_meaning(current: Memory, incoming: UpstreamMemory) -> bool:
    draft = incoming.draft
    return (
        current.body == draft.body.strip()
        and current.kind == MemoryKind(draft.kind)
        and current.tags == tuple(draft.tags)
        and current.scope_ref == ScopeRef(_scope(draft.product_id), draft.product_id or None)
    )


def _scope(product_id: str | None) -> Scope:
    return Scope.PRODUCT if product_id else Scope.GLOBAL


def _tag_from_label(label: str) -> str:
    tag = _NOT_TAG_CHARS.sub("-", label.strip().lower())
    tag = tag.lstrip("._:/-")[:64].rstrip("._:/-")
    return tag if TAG_PATTERN.match(tag) else ""


def _one_line(text: str) -> str:
    return plain_text(text).replace("\n", " ")


def _sentence(text: str) -> str:
    return text if text.endswith(_SENTENCE_END) else f"{text}."


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)
