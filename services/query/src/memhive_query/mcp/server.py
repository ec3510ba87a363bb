"""The MCP server and its streamable-HTTP app, for the gateway to mount at `/mcp`.

Build both per app instance: the SDK's session manager runs once per app.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from memhive_query.mcp.registry import register_tools
from memhive_query.mcp.tool_spec import ApiForRequest

INSTRUCTIONS = (
    "memhive is long-term memory shared by agents and sessions. Recall before deciding "
    "something that may already be known; save durable facts, decisions and preferences as "
    "single self-contained statements; when a fact changes, save the new one with "
    "supersedes=[old id] rather than forgetting the old one."
)


def build_mcp_server(api_for_request: ApiForRequest) -> MCPServer:
    """An MCP server whose tools call `api_for_request()` once per tool call.

    `api_for_request` returns the MemoryApi of the caller of the current request (the
    gateway reads it from a contextvar its auth middleware set); it may raise `ApiError`
    (e.g. 401), which reaches the agent as a tool error.
    """
    server = MCPServer("memhive", instructions=INSTRUCTIONS)
    register_tools(server, api_for_request)
    return server


def mcp_asgi_app(
    server: MCPServer, *, path: str = "/mcp", allowed_hosts: Sequence[str] | None = None
) -> Starlette:
    """The streamable-HTTP ASGI app serving `server` at `path`, stateless and JSON-only.

    Stateless: no MCP session lives in this process, so any replica answers any request.
    `allowed_hosts` turns on DNS-rebinding protection (Host header allow-list, e.g.
    ["memhive.example:*"]); without it every Host is served, since bearer tokens, not
    the browser's origin, guard the gateway. Its lifespan runs the session manager: when
    mounted inside another app, run `server.session_manager.run()` in that app's lifespan.
    """
    return server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=True,
        json_response=True,
        transport_security=_transport_security(allowed_hosts),
    )


def _transport_security(allowed_hosts: Sequence[str] | None) -> TransportSecuritySettings:
    if allowed_hosts is None:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=list(allowed_hosts)
    )
