"""What every route needs: the gateway and the caller's principal."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from memhive_domain.principals import Principal

from memhive_query.gateway import Gateway


def gateway(request: Request) -> Gateway:
    return request.app.state.gateway


async def principal(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> Principal:
    return await gateway(request).auth.principal_for(authorization)


GatewayDep = Annotated[Gateway, Depends(gateway)]
PrincipalDep = Annotated[Principal, Depends(principal)]
