"""What every route needs: the gateway and the caller's principal."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from memhive_application.authentication import bearer_credential
from memhive_domain.principals import Principal

from memhive_query.gateway import Gateway


# Async although nothing is awaited: FastAPI runs a plain `def` dependency in a worker
# thread, a hop on every request.
async def gateway(request: Request) -> Gateway:
    return request.app.state.gateway


# Declares the bearer scheme in the OpenAPI document (Swagger UI's Authorize button); the
# header itself is checked by the Authenticator, so every route answers 401 the same way.
bearer = HTTPBearer(auto_error=False, description="a token from `memhive token create`")


async def principal(
    request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Principal:
    return await request.app.state.gateway.auth.principal_for(request.headers.get("authorization"))


PrincipalDep = Annotated[Principal, Depends(principal)]


async def credential(_: PrincipalDep, request: Request) -> str:
    """The caller's credential as received, once the gateway accepted it (401 otherwise),
    for a service that authenticates the caller again (the token responder)."""
    return bearer_credential(request.headers.get("authorization"))


GatewayDep = Annotated[Gateway, Depends(gateway)]
CredentialDep = Annotated[str, Depends(credential)]
