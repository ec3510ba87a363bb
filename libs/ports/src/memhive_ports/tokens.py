from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Protocol

from memhive_domain.principals import Principal
from memhive_domain.tokens import TokenDraft, TokenRecord


class TokenDirectory(Protocol):
    """Bearer tokens and the principals they stand for. Only digests are stored."""

    async def resolve(self, token: str) -> Principal | None:
        """The principal for a live token; None when unknown, revoked or expired."""
        ...

    async def lookup(self, token: str) -> TokenRecord | None:
        """The record of a known token, its expiry shortened to the end of the grace period
        when the token is a rotated-away secret; None when unknown or revoked."""
        ...

    async def issue(self, principal: Principal, token: str | None = None) -> str:
        """Register a token (a new `mh_` one when None) for this principal; returns it."""
        ...

    async def create(
        self, draft: TokenDraft, created_by: str, now: datetime
    ) -> tuple[TokenRecord, str]:
        """A new token: its record and the token itself (shown once, never stored)."""
        ...

    async def get(self, token_id: str) -> TokenRecord | None: ...

    async def list(self, workspace_id: str | None = None) -> list[TokenRecord]: ...

    async def revoke(self, token_id: str) -> TokenRecord | None:
        """Deletes the token; returns what it was, None when there was no such token."""
        ...

    async def rotate(
        self, token_id: str, now: datetime, grace: timedelta
    ) -> tuple[TokenRecord, str] | None:
        """A new secret for the same token id and metadata; the old secret keeps working for
        `grace` (zero: stops at once). None when there was no such token."""
        ...

    async def changes(self) -> AsyncIterator[str]:
        """Ids of tokens changed from now on (created, rotated, revoked), as they happen;
        the watch is in place when this returns."""
        ...
