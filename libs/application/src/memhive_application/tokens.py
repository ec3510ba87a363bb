"""Use case: a workspace's admins manage its tokens. Used where tokens are written: by
ingest's token responder (for the admin routes, `token_requests.py`) and by the CLI.

A token is shown once, when created or rotated; listings carry metadata only. An admin
administers only the tokens homed at or below its own home, of a role no higher than its
own (`memhive_domain.delegation`): issuing one beyond that is refused (403), one beyond it
is missing from its listing and looks unknown to revoke and rotate (404), like a token of
another workspace. The CLI acts as the operator, a root-homed admin: unbounded.
"""

from __future__ import annotations

from dataclasses import replace

from memhive_domain.audit import AuditAction
from memhive_domain.delegation import administers, ensure_may_grant
from memhive_domain.errors import InvalidInput, NotFound
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.tokens import TokenDraft, TokenRecord, grace_period
from memhive_ports import Clock, TokenDirectory

from memhive_application.audit_trail import AuditTrail


class TokenAdmin:
    def __init__(self, tokens: TokenDirectory, trail: AuditTrail, clock: Clock) -> None:
        self._tokens, self._trail, self._clock = tokens, trail, clock

    async def create(self, principal: Principal, draft: TokenDraft) -> tuple[TokenRecord, str]:
        """The draft's workspace is always the admin's own."""
        async with self._trail.recording(principal, AuditAction.TOKEN_CREATE) as note:
            require(principal, Action.MANAGE_TOKENS)
            draft, now = replace(draft, workspace_id=principal.workspace_id), self._clock.now()
            if problems := draft.problems(now):
                raise InvalidInput(problems)  # every field at once, before the bounds
            ensure_may_grant(principal, draft.role, draft.home)
            record, token = await self._tokens.create(draft, created_by=principal.user_id, now=now)
            note.target = record.id
            return record, token

    async def list(self, principal: Principal) -> list[TokenRecord]:
        require(principal, Action.MANAGE_TOKENS)
        return administered(principal, await self._tokens.list(principal.workspace_id))

    async def revoke(self, principal: Principal, token_id: str) -> TokenRecord:
        async with self._trail.recording(principal, AuditAction.TOKEN_REVOKE, token_id):
            require(principal, Action.MANAGE_TOKENS)
            await self._own(principal, token_id)
            revoked = await self._tokens.revoke(token_id)
            if revoked is None:
                raise NotFound("token", token_id)
            return revoked

    async def rotate(
        self, principal: Principal, token_id: str, grace: str | None = None
    ) -> tuple[TokenRecord, str]:
        async with self._trail.recording(principal, AuditAction.TOKEN_ROTATE, token_id) as note:
            require(principal, Action.MANAGE_TOKENS)
            period = grace_period(grace)
            await self._own(principal, token_id)
            rotated = await self._tokens.rotate(token_id, self._clock.now(), period)
            if rotated is None:
                raise NotFound("token", token_id)
            if rotated[0].id != token_id:  # a legacy token got an id of its own
                note.target = f"{token_id}->{rotated[0].id}"
            return rotated

    async def _own(self, principal: Principal, token_id: str) -> TokenRecord:
        record = await self._tokens.get(token_id)
        if record is None or not _administered_by(principal, record):
            raise NotFound("token", token_id)
        return record


def administered(principal: Principal, records: list[TokenRecord]) -> list[TokenRecord]:
    """The records this admin administers (its workspace, its subtree, its role or below)."""
    return [r for r in records if _administered_by(principal, r)]


def _administered_by(principal: Principal, record: TokenRecord) -> bool:
    return record.workspace_id == principal.workspace_id and administers(
        principal, record.role, record.home
    )
