"""/v1/admin/audit: the workspace's audit log for its admins, newest first."""

from __future__ import annotations

import base64
from typing import Annotated, Any

from fastapi import APIRouter, Query
from memhive_domain.audit import DEFAULT_PAGE, MAX_PAGE, AuditEntry, audit_query
from memhive_domain.errors import FieldProblem, InvalidInput

from memhive_query.openapi import errors
from memhive_query.request_types import AuditActionName, Moment
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

router = APIRouter(prefix="/v1/admin", tags=["admin"], responses=errors(401, 403, 422))


@router.get("/audit")
async def read_audit(
    gw: GatewayDep,
    who: PrincipalDep,
    action: Annotated[AuditActionName | None, Query()] = None,
    principal: Annotated[str | None, Query(max_length=200)] = None,
    target: Annotated[str | None, Query(max_length=200)] = None,
    since: Annotated[Moment | None, Query(description="with its offset, e.g. Z")] = None,
    until: Annotated[Moment | None, Query(description="with its offset, e.g. Z")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
) -> dict:
    """Who did what to which target, and how it ended. `principal` is a user id or a
    credential (`token:<id>`, `oidc:<subject>`); pass `next_cursor` back as `cursor`."""
    query = audit_query(action, principal, target, since, until, limit)
    page = await gw.audit.read(who, query, _sequence(cursor))
    next_cursor = None if page.next_cursor is None else _cursor(page.next_cursor)
    return {"items": [audit_json(e) for e in page.entries], "next_cursor": next_cursor}


def audit_json(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "time": utc_iso(entry.time),
        "action": entry.action.value,
        "user": entry.user_id,
        "role": entry.role,
        "credential": entry.credential,
        "acting_for": entry.acting_for,
        "target": entry.target,
        "outcome": entry.outcome.value,
        "detail": entry.detail,
    }


def _cursor(sequence: int) -> str:
    return base64.urlsafe_b64encode(f"a:{sequence}".encode()).decode()


def _sequence(cursor: str | None) -> int | None:
    if not cursor:
        return None
    try:
        tag, value = base64.urlsafe_b64decode(cursor.encode()).decode().split(":")
        if tag != "a" or not 1 <= int(value) < 2**63:
            raise ValueError(cursor)
        return int(value)
    except Exception:
        raise InvalidInput([FieldProblem("cursor", "is not a cursor this API returned")]) from None
