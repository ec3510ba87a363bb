"""Verifying people's sign-in tokens from an OIDC identity provider."""
