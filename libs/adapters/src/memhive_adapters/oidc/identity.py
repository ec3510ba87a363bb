"""What the OIDC settings mean, resolved once per process, the same in every service.

The gateway verifies people's JWTs on every request and signs them in on the dashboard;
ingest's token responder verifies the JWT a token change was asked with (it trusts no
sender). Both build their verifier here, over one discovery (`discovery.py`), so
MEMHIVE_OIDC__ISSUER and __AUDIENCE alone (the JWKS from discovery) work in both.
"""

from __future__ import annotations

from dataclasses import dataclass

from memhive_ports import IdentityProvider, IdentityVerifier
from memhive_settings import OidcSettings

from memhive_adapters.oidc.discovery import OidcDiscovery
from memhive_adapters.oidc.jwks_verifier import JwksVerifier
from memhive_adapters.oidc.provider import HttpIdentityProvider


@dataclass(frozen=True, slots=True)
class OidcIdentity:
    verifier: IdentityVerifier | None = None  # None: OIDC is off (no issuer)
    provider: IdentityProvider | None = None  # None: no dashboard sign-in


def oidc_identity(settings: OidcSettings) -> OidcIdentity:
    if not settings.issuer:
        return OidcIdentity()
    discovery = OidcDiscovery(settings)
    provider = HttpIdentityProvider(settings, discovery) if settings.dashboard_sign_in else None
    return OidcIdentity(JwksVerifier(settings, discovery), provider)
