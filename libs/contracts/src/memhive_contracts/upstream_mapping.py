"""Upstream events from the wire (protobuf) to the domain, every field problem reported at once.

Hooks in any language publish these, so a rejected event names each field to fix; the
ingest service sends it to the dead-letter subject with that message as the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message
from memhive.v1 import upstream_pb2 as pb
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import is_valid_workspace_id
from memhive_domain.scopes import PRODUCT_ID_PATTERN
from memhive_domain.upstream import (
    CommentCreated,
    IssueCreated,
    IssueUpdated,
    JobCompleted,
    JobOutcome,
    KeyFile,
    KnowledgeSnapshot,
    NoteAdded,
    Procedure,
    ResolvedError,
    SessionContext,
    UpstreamEvent,
)

from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.timestamps import from_timestamp

# Ids end up in source_refs ("job:<id>:decision:<n>"), which the domain caps at 512.
MAX_ID_CHARS = 200

# Subject prefix -> message type; the full subject is "<prefix>.<workspace_id>".
UPSTREAM_MESSAGE_TYPES: dict[str, type[Message]] = {
    subjects.ISSUE_CREATED: pb.IssueCreated,
    subjects.ISSUE_UPDATED: pb.IssueUpdated,
    subjects.COMMENT_CREATED: pb.CommentCreated,
    subjects.JOB_COMPLETED: pb.JobCompleted,
    subjects.NOTE_ADDED: pb.NoteAdded,
    subjects.KNOWLEDGE_SNAPSHOT: pb.KnowledgeSnapshot,
}

_OUTCOMES = {
    pb.JOB_OUTCOME_SUCCEEDED: JobOutcome.SUCCEEDED,
    pb.JOB_OUTCOME_FAILED: JobOutcome.FAILED,
    pb.JOB_OUTCOME_CANCELLED: JobOutcome.CANCELLED,
}

# The id fields (beyond event_id) each message must carry.
_REQUIRED_IDS: dict[type[Message], tuple[str, ...]] = {
    pb.IssueCreated: ("issue_id",),
    pb.IssueUpdated: ("issue_id",),
    pb.CommentCreated: ("comment_id", "issue_id"),
    pb.JobCompleted: ("job_id",),
    pb.NoteAdded: ("note_id",),
    pb.KnowledgeSnapshot: ("snapshot_id",),
}


def upstream_event_from_wire(subject: str, payload: bytes) -> UpstreamEvent:
    """Decode and validate what a hook published on `subject`.

    Raises UndecodableMessage (not protobuf of the subject's type) or InvalidInput.
    """
    prefix, _, workspace_id = subject.rpartition(".")
    message_type = UPSTREAM_MESSAGE_TYPES.get(prefix)
    if message_type is None:
        expected = ", ".join(f"{p}.<workspace_id>" for p in UPSTREAM_MESSAGE_TYPES)
        raise InvalidInput([FieldProblem("subject", f"{subject!r} is not one of {expected}")])
    return upstream_event_from_pb(decode(payload, message_type), subject_workspace=workspace_id)


def upstream_event_from_pb(
    message: Message, *, subject_workspace: str | None = None
) -> UpstreamEvent:
    """The domain event for a decoded upstream message; InvalidInput lists every problem."""
    problems = upstream_problems(message)
    workspace_id = getattr(message, "workspace_id", "")
    if subject_workspace is not None and workspace_id and subject_workspace != workspace_id:
        problems.append(
            FieldProblem(
                "workspace_id",
                f"{workspace_id!r} differs from the subject's workspace {subject_workspace!r}; "
                "publish on <subject>.<workspace_id> of the event's own workspace",
            )
        )
    if problems:
        raise InvalidInput(problems)
    return _BUILDERS[type(message)](message)


def upstream_problems(message: Message) -> list[FieldProblem]:
    if type(message) not in _REQUIRED_IDS:
        name = message.DESCRIPTOR.full_name
        return [FieldProblem("message", f"{name} is not an upstream event")]
    problems = _common_problems(message)
    for field in _REQUIRED_IDS[type(message)]:
        problems += _id_problems(field, getattr(message, field))
    return problems + _content_problems(message)


def _common_problems(message: Any) -> list[FieldProblem]:
    problems = _id_problems("event_id", message.event_id)
    if not message.workspace_id:
        problems.append(FieldProblem("workspace_id", "is required"))
    elif not is_valid_workspace_id(message.workspace_id):
        problems.append(
            FieldProblem(
                "workspace_id",
                f"{message.workspace_id!r} is not a workspace id: use 1-64 lowercase letters, "
                "digits, '_' or '-', starting with a letter or digit",
            )
        )
    if message.product_id and not PRODUCT_ID_PATTERN.match(message.product_id):
        problems.append(
            FieldProblem(
                "product_id",
                f"{message.product_id!r} is not a product id: use 1-128 letters, digits, "
                "'.', '_', ':' or '-', starting with a letter or digit; omit it for global",
            )
        )
    if not message.HasField("occurred_at"):
        problems.append(
            FieldProblem("occurred_at", "is required: when it happened upstream (orders updates)")
        )
    else:
        try:
            from_timestamp(message.occurred_at)
        except ValueError:
            stamp = message.occurred_at
            problems.append(
                FieldProblem(
                    "occurred_at",
                    f"seconds {stamp.seconds}, nanos {stamp.nanos} is not a moment: seconds "
                    "within years 1-9999 UTC and nanos 0-999999999, as google.protobuf.Timestamp",
                )
            )
    return problems


def _id_problems(field: str, value: str) -> list[FieldProblem]:
    if not value.strip():
        return [FieldProblem(field, "is required")]
    if len(value) > MAX_ID_CHARS:
        return [FieldProblem(field, f"is {len(value)} characters; the maximum is {MAX_ID_CHARS}")]
    return []


def _content_problems(message: Any) -> list[FieldProblem]:
    if isinstance(message, pb.IssueCreated | pb.IssueUpdated) and not message.title.strip():
        return [FieldProblem("title", "is required: an issue needs a title")]
    if isinstance(message, pb.NoteAdded) and not (message.title.strip() or message.body.strip()):
        return [FieldProblem("body", "a note needs a title or a body")]
    if isinstance(message, pb.JobCompleted) and message.outcome not in _OUTCOMES:
        allowed = ", ".join(pb.JobOutcome.Name(v) for v in _OUTCOMES)
        return [FieldProblem("outcome", f"unknown value {message.outcome}; expected {allowed}")]
    if isinstance(message, pb.KnowledgeSnapshot):
        return [
            FieldProblem(f"key_files[{i}].path", "is required")
            for i, key_file in enumerate(message.key_files)
            if not key_file.path.strip()
        ]
    return []


def _envelope(message: Any) -> dict[str, Any]:
    """The fields every upstream event carries, with its own ids (trimmed)."""
    ids = {field: getattr(message, field).strip() for field in _REQUIRED_IDS[type(message)]}
    return ids | {
        "event_id": message.event_id,
        "workspace_id": message.workspace_id,
        "product_id": message.product_id or None,
        "author": message.author,
        "occurred_at": from_timestamp(message.occurred_at),
    }


def _issue(message: pb.IssueCreated | pb.IssueUpdated) -> IssueCreated | IssueUpdated:
    cls = IssueCreated if isinstance(message, pb.IssueCreated) else IssueUpdated
    return cls(
        **_envelope(message),
        title=message.title,
        description=message.description,
        status=message.status,
        labels=tuple(message.labels),
    )


def _comment(message: pb.CommentCreated) -> CommentCreated:
    return CommentCreated(**_envelope(message), body=message.body)


def _job(message: pb.JobCompleted) -> JobCompleted:
    return JobCompleted(
        **_envelope(message),
        outcome=_OUTCOMES[message.outcome],
        stdout_excerpt=message.stdout_excerpt,
        session=_session(message.session),
    )


def _session(session: pb.SessionContext) -> SessionContext:
    return SessionContext(
        decisions=tuple(session.decisions),
        resolved_errors=tuple(
            ResolvedError(e.error, e.resolution) for e in session.resolved_errors
        ),
        files_modified=tuple(session.files_modified),
    )


def _note(message: pb.NoteAdded) -> NoteAdded:
    return NoteAdded(
        **_envelope(message), title=message.title, body=message.body, tags=tuple(message.tags)
    )


def _knowledge(message: pb.KnowledgeSnapshot) -> KnowledgeSnapshot:
    return KnowledgeSnapshot(
        **_envelope(message),
        architecture_notes=tuple(message.architecture_notes),
        key_files=tuple(KeyFile(f.path, f.purpose) for f in message.key_files),
        conventions=tuple(message.conventions),
        procedures=tuple(Procedure(p.title, tuple(p.steps)) for p in message.procedures),
    )


_BUILDERS: dict[type[Message], Callable[[Any], UpstreamEvent]] = {
    pb.IssueCreated: _issue,
    pb.IssueUpdated: _issue,
    pb.CommentCreated: _comment,
    pb.JobCompleted: _job,
    pb.NoteAdded: _note,
    pb.KnowledgeSnapshot: _knowledge,
}
