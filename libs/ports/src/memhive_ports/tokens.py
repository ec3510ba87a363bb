from __future__ import annotations

from typing import Protocol

from memhive_domain.principals import Principal


class TokenDirectory(Protocol):
    """Bearer tokens and the principals they stand for. Tokens are stored hashed."""

    async def resolve(self, token: str) -> Principal | None:
        """The principal for this token, or None when the token is unknown."""
        ...

    async def issue(self, principal: Principal, token: str | None = None) -> str:
        """Register a token (a new random one when None) for this principal; returns it."""
        ...
