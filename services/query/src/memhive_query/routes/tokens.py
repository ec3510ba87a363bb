"""/v1/admin/tokens: a workspace's admins create, list, revoke and rotate its tokens.
A token is in the answer only once: when it is created or rotated."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from memhive_domain.principals import ROOT_HOME
from memhive_domain.tokens import NAME_MAX, TokenRecord
from memhive_ports import TokenRequest
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.request_types import (
    Duration,
    Lifetime,
    Moment,
    PrintableText,
    RoleName,
    ScopePath,
    UserId,
)
from memhive_query.routes.dependencies import CredentialDep, GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

# Changes are carried out by the token responder (ingest), which answers 503 if unreachable.
router = APIRouter(
    prefix="/v1/admin/tokens", tags=["admin"], responses=errors(401, 403, 413, 422, 503)
)


class CreateTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: UserId = Field(description="the user (or agent) the token stands for")
    role: RoleName = Field("member", description="at most the caller's own")
    name: PrintableText = Field("", max_length=NAME_MAX, description="e.g. 'ci hook'")
    home: ScopePath = Field(ROOT_HOME, description="the token's node: at or below the caller's")
    acting_for: UserId | None = None
    expires_in: Lifetime | None = Field(
        None, description="at most 10 years; none (and no expires_at): never"
    )
    expires_at: Moment | None = Field(
        None, description="within 10 years from now; not with expires_in"
    )


class RotateTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grace: Duration | None = Field(
        None, description="how long the old secret keeps working, at most 30d, e.g. 1h"
    )


@router.post("", status_code=201)
async def create_token(
    request: CreateTokenRequest, gw: GatewayDep, credential: CredentialDep
) -> dict:
    """Issue a token of the caller's workspace (admins only)."""
    at = request.expires_at.isoformat() if request.expires_at else None
    asked = TokenRequest(
        user_id=request.user,
        role=request.role,
        name=request.name,
        home=request.home,
        acting_for=request.acting_for,
        expires_in=request.expires_in,
        expires_at=at,
    )
    record, token = await gw.tokens.commands.create(credential, asked)
    return token_json(record) | {"token": token}


@router.get("")
async def list_tokens(gw: GatewayDep, who: PrincipalDep) -> dict:
    """The workspace's tokens: metadata only, never a secret."""
    return {"items": [token_json(r) for r in await gw.tokens.list(who)]}


@router.delete("/{token_id}", responses=errors(404))
async def revoke_token(token_id: str, gw: GatewayDep, credential: CredentialDep) -> dict:
    """Every replica refuses the token within about a second."""
    record = await gw.tokens.commands.revoke(credential, token_id)
    return token_json(record) | {"status": "revoked"}


@router.post("/{token_id}/rotate", responses=errors(404))
async def rotate_token(
    token_id: str,
    gw: GatewayDep,
    credential: CredentialDep,
    request: RotateTokenRequest | None = None,
) -> dict:
    """A new secret, same id and metadata; the old secret stops (after `grace`, if given)."""
    grace = request.grace if request else None
    record, token = await gw.tokens.commands.rotate(credential, token_id, grace)
    return token_json(record) | {"token": token}


def token_json(record: TokenRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "name": record.name,
        "workspace_id": record.workspace_id,
        "user": record.user_id,
        "role": record.role.value,
        "home": record.home,
        "acting_for": record.acting_for,
        "created_at": utc_iso(record.created_at),
        "created_by": record.created_by,
        "expires_at": utc_iso(record.expires_at),
        "rotated_at": utc_iso(record.rotated_at),
    }
