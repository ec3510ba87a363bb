"""The MCP server and its streamable-HTTP app, for the gateway to mount at `/mcp`.

Build both per app instance: the SDK's session manager runs once per app.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, InputRequiredResult, Resource, ServerCapabilities
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.applications import Starlette

from memhive_query.mcp.api import ApiError
from memhive_query.mcp.registry import register_tools
from memhive_query.mcp.resources import listed_resources, register_resources
from memhive_query.mcp.tool_spec import ApiForRequest, error_result
from memhive_query.validation_problems import field_problems

INSTRUCTIONS = (
    "memhive is long-term memory shared by agents and sessions. Recall before deciding "
    "something that may already be known; save durable facts, decisions and preferences as "
    "single self-contained statements; when a fact changes, save the new one with "
    "supersedes=[old id] rather than forgetting the old one. Keep structured state "
    "(progress, settings) with set_state; catch up with recent_activity."
)
# Tool calls after which the resource list may differ (a skill added or gone).
RESOURCE_CHANGING_TOOLS = frozenset({"crystallize_memory", "forget_memory"})


class MemhiveMcpServer(MCPServer):
    """memhive's tools and read-only resources, with capabilities that say exactly what it
    sends: `resources.listChanged` only when `announces_resource_changes` (the stdio bridge,
    which keeps one session per client; the stateless HTTP app has no session to carry a
    notification), never `listChanged` for tools or prompts (they never change at run time)
    and no resource subscriptions.

    How the bridge learns of a change: after a tool call that can change the list
    (RESOURCE_CHANGING_TOOLS) it lists the resources again and, when the list differs from
    the one before the call, sends `notifications/resources/list_changed` (on 2026-07-28
    connections, on the client's `subscriptions/listen` stream). Changes made by other
    agents are seen on the client's next list.
    """

    def __init__(self, api_for_request: ApiForRequest, *, announces_resource_changes: bool):
        self._changes = InMemorySubscriptionBus() if announces_resource_changes else None
        super().__init__(
            "memhive",
            version=importlib.metadata.version("memhive-query"),  # serverInfo.version
            instructions=INSTRUCTIONS,
            subscriptions=self._changes if self._changes is not None else False,
        )
        self._api_for_request = api_for_request
        register_tools(self, api_for_request)
        register_resources(self, api_for_request)
        # The SDK derives listChanged from whether listen is served (2026-07-28) or from
        # options the caller passes (earlier versions): wrap it to say what memhive sends.
        lowlevel = self._lowlevel_server
        self._sdk_capabilities = lowlevel.get_capabilities
        lowlevel.get_capabilities = self._capabilities  # type: ignore[method-assign]
        if self._changes is not None:
            self.middleware.append(self._announce_resource_changes)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        """Arguments that break a tool's schema are a tool error with one sentence per field,
        like the REST API's 422 (the SDK's own text is pydantic's, with its links)."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if not isinstance(error.__cause__, ValidationError):
                raise
            problems = field_problems(error.__cause__.errors())
            return error_result(ApiError(422, "; ".join(str(p) for p in problems)))

    async def list_resources(self) -> list[Resource]:
        return [*await super().list_resources(), *await listed_resources(self._api_for_request())]

    def _capabilities(self, *args: Any, **kwargs: Any) -> ServerCapabilities:
        found = self._sdk_capabilities(*args, **kwargs)
        announced = self._changes is not None
        if found.tools is not None:
            found.tools.list_changed = False
        if found.prompts is not None:
            found.prompts.list_changed = False
        if found.resources is not None:
            found.resources.list_changed = announced
            found.resources.subscribe = False
        return found

    async def _announce_resource_changes(
        self, ctx: ServerRequestContext, call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params or {}
        if ctx.method != "tools/call" or params.get("name") not in RESOURCE_CHANGING_TOOLS:
            return await call_next(ctx)
        before = await self._listed_uris()
        result = await call_next(ctx)
        if await self._listed_uris() != before:
            await self._announce(ctx)
        return result

    async def _listed_uris(self) -> frozenset[str] | None:
        try:
            return frozenset(r.uri for r in await self.list_resources())
        except Exception:  # noqa: BLE001 - the tool call must not fail for a missed notice
            return None

    async def _announce(self, ctx: ServerRequestContext) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            assert self._changes is not None
            await self._changes.publish(ResourcesListChanged())
        else:
            await ctx.session.send_resource_list_changed()


def build_mcp_server(
    api_for_request: ApiForRequest, *, announces_resource_changes: bool = False
) -> MemhiveMcpServer:
    """An MCP server whose tools and resources call `api_for_request()` once per call.

    `api_for_request` returns the MemoryApi of the caller of the current request (the
    gateway reads it from a contextvar its auth middleware set); it may raise `ApiError`
    (e.g. 401), which reaches the agent as a tool error.
    """
    return MemhiveMcpServer(api_for_request, announces_resource_changes=announces_resource_changes)


def mcp_asgi_app(server: MCPServer, *, path: str = "/mcp") -> Starlette:
    """The streamable-HTTP ASGI app serving `server` at `path`, stateless and JSON-only.

    Stateless: no MCP session lives in this process, so any replica answers any request.
    The SDK's DNS-rebinding check stays off: the gateway checks Host and Origin itself,
    before the bearer token (`mcp/request_origin.py`). Its lifespan runs the session
    manager: when mounted inside another app, run `server.session_manager.run()` in that
    app's lifespan.
    """
    return server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
