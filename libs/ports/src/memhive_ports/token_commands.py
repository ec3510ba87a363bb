"""Token changes asked of the one service allowed to write the token bucket.

The gateway does not write tokens: it forwards the caller's credential as received, and
the service behind this port authenticates it again, applies the policy and records the
audit entry. Refusals come back as the domain's errors (Unauthenticated, NotAllowed,
NotFound, InvalidInput), so entry points answer them as they always did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from memhive_domain.tokens import TokenRecord

from memhive_ports.faults import RetryLater


class TokenServiceUnavailable(RetryLater):
    """No token service answered in time (none running, or the bus is down)."""


@dataclass(frozen=True, slots=True)
class TokenRequest:
    """A new token, as the caller asked for it; the token service validates every field."""

    user_id: str
    role: str = "member"
    name: str = ""
    home: str = "global"
    acting_for: str | None = None
    expires_in: str | None = None
    expires_at: str | None = None  # ISO 8601, as given (a missing time zone is refused)


class TokenCommands(Protocol):
    async def create(self, credential: str, request: TokenRequest) -> tuple[TokenRecord, str]:
        """The new token's record and the token itself (shown once)."""
        ...

    async def revoke(self, credential: str, token_id: str) -> TokenRecord: ...

    async def rotate(
        self, credential: str, token_id: str, grace: str | None = None
    ) -> tuple[TokenRecord, str]: ...
