"""AuditEntry <-> AuditRecorded."""

from __future__ import annotations

from memhive.v1 import audit_pb2
from memhive_domain.audit import AuditAction, AuditEntry, Outcome

from memhive_contracts.mapping import from_timestamp, to_timestamp


def audit_to_pb(entry: AuditEntry) -> audit_pb2.AuditRecorded:
    return audit_pb2.AuditRecorded(
        id=entry.id,
        workspace_id=entry.workspace_id,
        time=to_timestamp(entry.time),
        action=entry.action.value,
        user_id=entry.user_id,
        role=entry.role,
        credential=entry.credential,
        acting_for=entry.acting_for or "",
        target=entry.target,
        outcome=entry.outcome.value,
        detail=entry.detail,
    )


def audit_from_pb(message: audit_pb2.AuditRecorded) -> AuditEntry:
    """Raises ValueError for an action or outcome this version does not know."""
    time = from_timestamp(message.time, message.HasField("time"))
    if time is None:
        raise ValueError("an audit entry without a time")
    return AuditEntry(
        id=message.id,
        workspace_id=message.workspace_id,
        time=time,
        action=AuditAction(message.action),
        user_id=message.user_id,
        role=message.role,
        credential=message.credential,
        target=message.target,
        outcome=Outcome(message.outcome),
        acting_for=message.acting_for or None,
        detail=message.detail,
    )
