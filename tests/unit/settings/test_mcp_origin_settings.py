"""The hosts and origins /mcp answers, as an operator sets them (memhive_query/mcp/request_origin.py)."""

from __future__ import annotations

import pytest
from memhive_query.mcp.request_origin import McpOrigins
from memhive_settings import MemhiveSettings
from pydantic import ValidationError


def test_the_environment_lists_a_proxy_name_and_a_browser_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMHIVE_QUERY__MCP_ALLOWED_HOSTS", '["memhive.example.com"]')
    monkeypatch.setenv("MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS", '["https://app.example.com"]')
    query = MemhiveSettings().query
    origins = McpOrigins.for_gateway(
        "127.0.0.1", hosts=query.mcp_allowed_hosts, origins=query.mcp_allowed_origins
    )
    assert origins.refusal("memhive.example.com", "https://app.example.com") is None
    assert origins.refusal("other.example.com", None).status == 421


def test_by_default_nothing_is_listed() -> None:
    query = MemhiveSettings().query
    assert (query.mcp_allowed_hosts, query.mcp_allowed_origins) == (None, [])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("MEMHIVE_QUERY__MCP_ALLOWED_HOSTS", '["memhive.example.com/mcp"]'),
        ("MEMHIVE_QUERY__MCP_ALLOWED_HOSTS", '["two names"]'),
        ("MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS", '["app.example.com"]'),  # no scheme
        ("MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS", '["https://app.example.com/"]'),
        ("MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS", '["null"]'),
    ],
)
def test_what_could_never_match_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, field: str, value: str
) -> None:
    monkeypatch.setenv(field, value)
    with pytest.raises(ValidationError, match="mcp_allowed"):
        MemhiveSettings()
