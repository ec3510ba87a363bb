"""/v1/admin/tokens: a workspace's admins create, list, revoke and rotate its tokens.
A token is in the answer only once: when it is created or rotated."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter
from memhive_domain.principals import ROOT_HOME
from memhive_domain.tokens import TokenRecord
from memhive_ports import TokenRequest
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.openapi import errors
from memhive_query.routes.dependencies import CredentialDep, GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

# Changes are carried out by the token responder (ingest), which answers 503 if unreachable.
router = APIRouter(
    prefix="/v1/admin/tokens", tags=["admin"], responses=errors(401, 403, 413, 422, 503)
)


class CreateTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(description="the user (or agent) the token stands for", max_length=128)
    role: Literal["admin", "member", "agent", "viewer"] = "member"
    name: str = Field("", max_length=80, description="what it is for, e.g. 'ci hook'")
    home: str = Field(ROOT_HOME, max_length=512, description="the node in the scope tree")
    acting_for: str | None = Field(None, max_length=128)
    expires_in: str | None = Field(None, max_length=16, description="e.g. 30d, 12h; none: never")
    expires_at: datetime | None = None


class RotateTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grace: str | None = Field(
        None, max_length=16, description="how long the old secret keeps working, e.g. 1h"
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
