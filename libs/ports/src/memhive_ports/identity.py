from __future__ import annotations

from typing import Protocol

from memhive_domain.principals import Principal


class SignInRejected(Exception):
    """A sign-in token that is forged, expired, for another audience or otherwise unusable;
    the message says which (it reaches the caller with the 401)."""


class IdentityVerifier(Protocol):
    """People sign in with an identity provider (OIDC); memhive verifies its tokens."""

    def claims_to_be(self, credential: str) -> bool:
        """Whether this bearer credential is this verifier's kind (e.g. a JWT)."""
        ...

    async def verify(self, credential: str) -> Principal:
        """The principal the token names; raises SignInRejected."""
        ...
