"""MCP on the gateway: the streamable-HTTP app at /mcp, behind the same bearer tokens as REST,
served only for the Host and Origin headers `McpOrigins` allows (mcp/request_origin.py).

The tools reach memhive through the REST routes of this very app, in process (ASGI, no
socket): one set of validation, error mapping and JSON shapes for REST, MCP and the stdio
bridge, at the cost of about a millisecond of routing per tool call.
"""

from __future__ import annotations

from contextvars import ContextVar

import httpx
from fastapi import FastAPI
from memhive_application.authentication import Authenticator, Unauthenticated
from memhive_ports import RetryLater
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memhive_query.errors import retry_later_response
from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.request_origin import McpOrigins
from memhive_query.mcp.rest_api import RestMemoryApi
from memhive_query.mcp.server import build_mcp_server, mcp_asgi_app

MCP_PATH = "/mcp"
_caller_api: ContextVar[MemoryApi] = ContextVar("memhive_caller_api")


class McpAuth:
    """Checks the Host and Origin headers (421, 403), then the bearer token (401) before any
    MCP session starts, then hands the tools an API acting as that caller."""

    def __init__(
        self, app: ASGIApp, auth: Authenticator, loopback: httpx.AsyncClient, origins: McpOrigins
    ) -> None:
        self._app, self._auth, self._loopback, self._origins = app, auth, loopback, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(MCP_PATH):
            return await self._app(scope, receive, send)
        headers = dict(scope["headers"])
        refused = self._origins.refusal(_text(headers.get(b"host")), _text(headers.get(b"origin")))
        if refused is not None:
            response = JSONResponse({"detail": refused.detail}, refused.status)
            return await response(scope, receive, send)
        header = _text(headers.get(b"authorization")) or ""
        try:
            await self._auth.principal_for(header)
        except Unauthenticated as exc:
            response = JSONResponse({"detail": str(exc)}, 401, {"WWW-Authenticate": "Bearer"})
            return await response(scope, receive, send)
        except RetryLater as exc:  # the token could not be looked up: the bus is unavailable
            return await retry_later_response(exc)(scope, receive, send)
        token = header.partition(" ")[2].strip()
        _caller_api.set(RestMemoryApi("http://memhive", token, client=self._loopback))
        await self._app(scope, receive, send)


def mount_mcp(app: FastAPI, auth: Authenticator, origins: McpOrigins):
    """Mounts /mcp (after every REST route) and returns the session manager the app's
    lifespan must run."""
    server = build_mcp_server(_caller_api.get)
    loopback = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://memhive", timeout=60
    )
    app.mount("/", mcp_asgi_app(server, path=MCP_PATH))
    app.add_middleware(McpAuth, auth=auth, loopback=loopback, origins=origins)
    return server.session_manager, loopback


def _text(header: bytes | None) -> str | None:
    return None if header is None else header.decode("latin-1")
