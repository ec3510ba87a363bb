from __future__ import annotations

from dataclasses import dataclass
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

    async def verify(self, credential: str, *, nonce: str | None = None) -> Principal:
        """The principal the token names; raises SignInRejected. With a nonce (an id_token
        from the dashboard's sign-in), the token's `nonce` claim must equal it."""
        ...


class ProviderUnavailable(Exception):
    """The identity provider did not answer in time, or answered nonsense (a 503 to the user)."""


class CodeRefused(Exception):
    """The token endpoint refused the authorization code (used twice, expired, forged)."""


@dataclass(frozen=True, slots=True)
class ProviderEndpoints:
    """What a provider's discovery document says about where to send people and codes."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str


class IdentityProvider(Protocol):
    """The provider's side of the authorization-code flow (the dashboard's sign-in)."""

    async def endpoints(self) -> ProviderEndpoints:
        """From discovery (cached); raises ProviderUnavailable."""
        ...

    async def exchange_code(self, code: str, code_verifier: str, redirect_uri: str) -> str:
        """The id_token the token endpoint gives for this code; raises CodeRefused or
        ProviderUnavailable."""
        ...
