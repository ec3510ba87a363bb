"""A stand-in gateway: a fake bearer check, the MCP app mounted the way the real one must be.

Tokens: "member-token" may read and write; "reader-token" is a non-member (reads public
memories only, may not write); anything else is refused with 401 before MCP is reached.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar

from fastapi import FastAPI
from memhive_query.mcp.api import MemoryApi
from memhive_query.mcp.server import build_mcp_server, mcp_asgi_app
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.unit.mcp.fake_api import FakeMemoryApi

MEMBER_TOKEN = "member-token"
READER_TOKEN = "reader-token"


def build_gateway() -> tuple[FastAPI, FakeMemoryApi]:
    member = FakeMemoryApi()
    apis = {
        MEMBER_TOKEN: member,
        READER_TOKEN: FakeMemoryApi(member=False, memories=member.memories),
    }
    caller_api: ContextVar[MemoryApi] = ContextVar("caller_api")
    mcp_server = build_mcp_server(caller_api.get)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            yield

    app = FastAPI(lifespan=lifespan)

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"ok": True}

    app.mount("/", mcp_asgi_app(mcp_server))
    app.add_middleware(BearerCheck, apis=apis, caller_api=caller_api)
    return app, member


class BearerCheck:
    """The gateway's auth middleware, reduced to a token table: sets the caller's API."""

    def __init__(self, app: ASGIApp, apis: dict[str, MemoryApi], caller_api: ContextVar[MemoryApi]):
        self.app, self.apis, self.caller_api = app, apis, caller_api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        api = self.apis.get(_bearer(scope))
        if api is None:
            refusal = JSONResponse({"detail": "missing or unknown bearer token"}, status_code=401)
            return await refusal(scope, receive, send)
        self.caller_api.set(api)
        await self.app(scope, receive, send)


def _bearer(scope: Scope) -> str:
    headers = dict(scope["headers"])
    return headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
