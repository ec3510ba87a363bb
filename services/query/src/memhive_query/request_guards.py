"""What every HTTP request passes before any route: a size limit and known methods.

- A body larger than `max_bytes` is refused with 413 (by Content-Length at once, or when a
  chunked body grows past it), so no route or JSON parser ever holds more. A path named in
  `larger` has its own bound (an import takes a whole file).
- A known REST path called with a method it does not support (TRACE, PUT, ...) gets 405 with
  `Allow`. Without this the MCP app, mounted at "/", would answer such calls with 404.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memhive_query.errors import error_response

MAX_REQUEST_BYTES = 128 * 1024


class RequestGuards:
    """`openapi` returns the app's OpenAPI document: its paths are the known ones."""

    def __init__(
        self,
        app: ASGIApp,
        openapi: Callable[[], dict[str, Any]],
        max_bytes: int = MAX_REQUEST_BYTES,
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self._app, self._openapi, self._max = app, openapi, max_bytes
        self._larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self._app(scope, receive, send)
        if (allowed := self._other_methods(scope)) is not None:
            response = error_response(405, f"{scope['method']} is not supported here")
            response.headers["Allow"] = ", ".join(sorted(allowed))
            return await response(scope, receive, send)
        limit = self._larger.get(scope["path"], self._max)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return await self._too_large(scope, receive, send, limit)
        # Read the whole body first (at most the limit), so a chunked body that grows too
        # large is refused here: routes catch errors raised while they read the body.
        body = await self._body_within_limit(receive, limit)
        if body is None:
            return await self._too_large(scope, receive, send, limit)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self._app(scope, replay, send)

    async def _body_within_limit(self, receive: Receive, limit: int) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks)  # disconnected: the route will see it
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                return None
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _other_methods(self, scope: Scope) -> set[str] | None:
        """The methods a documented path allows, when it is called with another one."""
        for pattern, methods in self._known_paths:
            if pattern.fullmatch(scope["path"]):
                return None if scope["method"] in methods else methods
        return None

    @cached_property
    def _known_paths(self) -> list[tuple[re.Pattern[str], set[str]]]:
        paths = self._openapi().get("paths", {})
        return [
            (re.compile(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(path))), _methods(operations))
            for path, operations in paths.items()
        ]

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        detail = f"the request body is larger than {limit} bytes"
        await error_response(413, detail)(scope, receive, send)


def _methods(operations: dict[str, Any]) -> set[str]:
    return {method.upper() for method in operations}
