"""Who asked for a command, on the wire: the principal's role and home, which ingest needs
to check the scope-tree rights again (`requester.proto`)."""

from __future__ import annotations

from memhive.v1 import requester_pb2 as pb
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import Principal, Role


def requester_to_pb(principal: Principal) -> pb.Requester:
    return pb.Requester(role=principal.role.value, home=principal.home)


def requester_of(workspace_id: str, requested_by: str, command) -> Principal | None:
    """The principal a command states, or None when it states none (older senders, the link
    classifier). A role memhive does not know is invalid input (dead-lettered)."""
    if not command.HasField("requester"):
        return None
    try:
        role = Role(command.requester.role)
    except ValueError:
        problem = FieldProblem("requester.role", f"unknown role {command.requester.role!r}")
        raise InvalidInput([problem]) from None
    return Principal(workspace_id, requested_by or "unknown", role, command.requester.home)
