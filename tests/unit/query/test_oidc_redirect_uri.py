"""The OIDC callback address: the configured one, else the request's origin only when its
host is allowed; a Host header of the client's choosing never becomes the way back."""

from __future__ import annotations

import pytest
from memhive_query.dashboard.oidc_flow import SignInFailed, redirect_uri_for
from memhive_settings import OidcSettings

CALLBACK = "/memory/oidc/callback"


@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:8080/", "http://localhost/", "http://[::1]:18080/", "https://localhost/"],
)
def test_loopback_origins_are_allowed_by_default(origin: str) -> None:
    assert redirect_uri_for(OidcSettings(), origin, CALLBACK) == origin.rstrip("/") + CALLBACK


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example/",
        "http://localhost.evil.example/",
        "http://127.0.0.1.evil.example:8080/",
        "http://[::2]/",
    ],
)
def test_any_other_host_is_refused_with_the_setting_to_change(origin: str) -> None:
    with pytest.raises(SignInFailed) as refused:
        redirect_uri_for(OidcSettings(), origin, CALLBACK)
    assert refused.value.status == 400
    assert "MEMHIVE_OIDC__REDIRECT_HOSTS" in str(refused.value)


def test_an_allow_list_names_hosts_any_port() -> None:
    settings = OidcSettings(redirect_hosts=["memory.example.com"])
    got = redirect_uri_for(settings, "https://memory.example.com:8443/", CALLBACK)
    assert got == "https://memory.example.com:8443" + CALLBACK
    with pytest.raises(SignInFailed):
        redirect_uri_for(settings, "http://127.0.0.1/", CALLBACK)  # the list replaces loopback


def test_a_configured_redirect_url_wins_over_any_host() -> None:
    configured = "https://memory.example.com/memory/oidc/callback"
    settings = OidcSettings(redirect_url=configured, redirect_hosts=[])
    assert redirect_uri_for(settings, "http://evil.example/", CALLBACK) == configured
