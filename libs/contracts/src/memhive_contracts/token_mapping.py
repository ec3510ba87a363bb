"""Token requests on the bus: TokenRecord <-> TokenInfo, and refusals <-> TokenAnswer.

A refusal travels as its kind plus the message (and the fields, for invalid input), so the
gateway raises the same domain error the responder did and answers the same HTTP status.
"""

from __future__ import annotations

from memhive.v1 import token_admin_pb2 as pb
from memhive_domain.errors import (
    FieldProblem,
    InvalidInput,
    NotAllowed,
    NotFound,
    Unauthenticated,
)
from memhive_domain.principals import Role
from memhive_domain.tokens import TokenRecord

from memhive_contracts.mapping import from_timestamp, to_timestamp

UNAUTHENTICATED = "unauthenticated"
NOT_ALLOWED = "not_allowed"
NOT_FOUND = "not_found"
INVALID_INPUT = "invalid_input"
MALFORMED = "malformed"
FAILED = "failed"


class TokenRequestFailed(Exception):
    """The responder could not carry out a valid request (or could not read it)."""


def record_to_pb(record: TokenRecord) -> pb.TokenInfo:
    return pb.TokenInfo(
        id=record.id,
        workspace_id=record.workspace_id,
        user_id=record.user_id,
        role=record.role.value,
        name=record.name,
        home=record.home,
        acting_for=record.acting_for or "",
        created_at=to_timestamp(record.created_at),
        created_by=record.created_by or "",
        expires_at=to_timestamp(record.expires_at),
        rotated_at=to_timestamp(record.rotated_at),
    )


def record_from_pb(info: pb.TokenInfo) -> TokenRecord:
    return TokenRecord(
        id=info.id,
        workspace_id=info.workspace_id,
        user_id=info.user_id,
        role=Role(info.role),
        name=info.name,
        home=info.home,
        acting_for=info.acting_for or None,
        created_at=from_timestamp(info.created_at, info.HasField("created_at")),
        created_by=info.created_by or None,
        expires_at=from_timestamp(info.expires_at, info.HasField("expires_at")),
        rotated_at=from_timestamp(info.rotated_at, info.HasField("rotated_at")),
    )


def done(record: TokenRecord, secret: str = "") -> pb.TokenAnswer:
    return pb.TokenAnswer(token=record_to_pb(record), secret=secret)


def refusal(exc: Exception) -> pb.TokenAnswer:
    """The answer for an exception the responder raised; anything unexpected is `failed`
    without its message (which may name internals)."""
    if isinstance(exc, InvalidInput):
        problems = [pb.TokenProblem(field=p.field, message=p.message) for p in exc.problems]
        return pb.TokenAnswer(error=INVALID_INPUT, reason=str(exc), problems=problems)
    for kind, error in _KINDS.items():
        if isinstance(exc, error):
            return pb.TokenAnswer(error=kind, reason=str(exc))
    return pb.TokenAnswer(error=FAILED, reason=f"the token service failed ({type(exc).__name__})")


def raise_refusal(answer: pb.TokenAnswer) -> None:
    """Raises the domain error an answer carries; returns for a successful one."""
    if not answer.error:
        return
    if answer.error == INVALID_INPUT:
        raise InvalidInput([FieldProblem(p.field, p.message) for p in answer.problems])
    if answer.error == NOT_FOUND:
        raise _not_found(answer.reason)
    error = _KINDS.get(answer.error)
    if error is None:
        raise TokenRequestFailed(answer.reason or answer.error)
    raise error(answer.reason)


def _not_found(reason: str) -> NotFound:
    """NotFound builds its own message: keep the responder's as it was."""
    exc = NotFound("token", "")
    exc.args = (reason,)
    return exc


_KINDS: dict[str, type[Exception]] = {
    UNAUTHENTICATED: Unauthenticated,
    NOT_ALLOWED: NotAllowed,
    NOT_FOUND: NotFound,
}
