"""Use case: token changes asked over the bus, carried out by the one service allowed to
write the token bucket. It trusts no sender: each request's credential (a memhive token or
an OIDC JWT, as the caller presented it) is authenticated here, then `TokenAdmin` checks
the policy and the workspace, writes and records the audit entry."""

from __future__ import annotations

from datetime import datetime

from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import Role
from memhive_domain.tokens import TokenDraft, TokenRecord, expiry
from memhive_ports import Clock, TokenRequest

from memhive_application.authentication import Authenticator
from memhive_application.tokens import TokenAdmin


class AuthenticatedTokenAdmin:
    """`TokenCommands` over the token directory itself."""

    def __init__(self, auth: Authenticator, admin: TokenAdmin, clock: Clock) -> None:
        self._auth, self._admin, self._clock = auth, admin, clock

    async def create(self, credential: str, request: TokenRequest) -> tuple[TokenRecord, str]:
        principal = await self._auth.principal_of(credential)
        draft = token_draft(principal.workspace_id, request, self._clock.now())
        return await self._admin.create(principal, draft)

    async def revoke(self, credential: str, token_id: str) -> TokenRecord:
        return await self._admin.revoke(await self._auth.principal_of(credential), token_id)

    async def rotate(
        self, credential: str, token_id: str, grace: str | None = None
    ) -> tuple[TokenRecord, str]:
        principal = await self._auth.principal_of(credential)
        return await self._admin.rotate(principal, token_id, grace)


def token_draft(workspace_id: str, request: TokenRequest, now: datetime) -> TokenDraft:
    """The draft a request asks for; TokenDraft checks the rest when it is recorded."""
    problems = []
    try:
        role = Role(request.role)
    except ValueError:
        role = Role.MEMBER
        problems.append(FieldProblem("role", "one of admin, member, agent, viewer"))
    at = None
    if request.expires_at is not None:
        try:
            at = datetime.fromisoformat(request.expires_at)
        except ValueError:
            problems.append(FieldProblem("expires_at", "an ISO 8601 time, e.g. 2027-01-01T00:00Z"))
    if problems:
        raise InvalidInput(problems)
    return TokenDraft(
        workspace_id=workspace_id,
        user_id=request.user_id,
        role=role,
        name=request.name,
        home=request.home,
        acting_for=request.acting_for,
        expires_at=expiry(now, request.expires_in, at),
    )
