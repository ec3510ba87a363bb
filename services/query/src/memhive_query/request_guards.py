"""What every HTTP request passes before any route: a size limit, known methods, and query
parameters named once.

- A body larger than `max_bytes` is refused with 413 (by Content-Length at once, or when a
  chunked body grows past it), so no route or JSON parser ever holds more. A path named in
  `larger` has its own bound (an import takes a whole file), and its body is not read here:
  its route reads it once the caller is known and has room for it (`import_budget.py`), and
  `BodyTooLarge` (413) stops it past the bound.
- A known REST path called with a method it does not support (TRACE, PUT, ...) gets 405 with
  `Allow`. Without this the MCP app, mounted at "/", would answer such calls with 404.
- A query parameter the document declares single-valued, sent twice, gets 422 naming it:
  Starlette would read the last value alone.

A documented path is matched with its route's own pattern, so a `{scope:path}` parameter,
which the OpenAPI document writes as `{scope}`, matches a node path of several segments.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl

from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memhive_query.errors import BodyTooLarge, error_response, problems_response

MAX_REQUEST_BYTES = 128 * 1024


class RequestGuards:
    """`openapi` returns the app's OpenAPI document: its paths are the known ones.
    `route_paths` returns the routes' own paths (`/v1/kv/{scope:path}/{key}`), which say how
    each documented one matches (a documented path without a route: one segment per
    parameter)."""

    def __init__(
        self,
        app: ASGIApp,
        openapi: Callable[[], dict[str, Any]],
        route_paths: Callable[[], Iterable[str]],
        max_bytes: int = MAX_REQUEST_BYTES,
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self._app, self._openapi, self._route_paths = app, openapi, route_paths
        self._max = max_bytes
        self._larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self._app(scope, receive, send)
        if (path := self._documented(scope["path"])) is not None:
            if scope["method"] not in path.operations:
                response = error_response(405, f"{scope['method']} is not supported here")
                response.headers["Allow"] = ", ".join(sorted(path.operations))
                return await response(scope, receive, send)
            if repeated := _repeated(scope, path.operations[scope["method"]]):
                problems = [{"field": name, "message": "must be sent once"} for name in repeated]
                return await problems_response(problems)(scope, receive, send)
        limit = self._larger.get(scope["path"], self._max)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return await self._too_large(scope, receive, send, limit)
        if scope["path"] in self._larger:
            return await self._app(scope, _counted(receive, limit), send)
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

    def _documented(self, path: str) -> _Path | None:
        for known in self._known_paths:
            if known.pattern.fullmatch(path):
                return known
        return None

    @cached_property
    def _known_paths(self) -> list[_Path]:
        paths = self._openapi().get("paths", {})
        patterns = {}
        for route_path in self._route_paths():
            regex, documented, _ = compile_path(route_path)
            patterns[documented] = regex
        return [
            _Path(
                patterns.get(path) or _one_segment_each(path),
                {method.upper(): _single_valued(op) for method, op in operations.items()},
            )
            for path, operations in paths.items()
        ]

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        detail = f"the request body is larger than {limit} bytes"
        await error_response(413, detail)(scope, receive, send)


def _counted(receive: Receive, limit: int) -> Receive:
    """`receive`, raising BodyTooLarge once the body read so far is longer than `limit`."""
    size = 0

    async def counted() -> Message:
        nonlocal size
        message = await receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > limit:
                raise BodyTooLarge(limit)
        return message

    return counted


@dataclass(frozen=True)
class _Path:
    """A documented path: its methods, each with its query parameters that take one value."""

    pattern: re.Pattern[str]
    operations: dict[str, frozenset[str]]


def _one_segment_each(path: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(path)))


def _single_valued(operation: dict[str, Any]) -> frozenset[str]:
    return frozenset(
        p["name"]
        for p in operation.get("parameters", [])
        if p.get("in") == "query" and not _is_array(p.get("schema", {}))
    )


def _is_array(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "array" or any(_is_array(s) for s in schema.get("anyOf", []))


def _repeated(scope: Scope, single_valued: frozenset[str]) -> list[str]:
    """The single-valued parameters the query string names more than once, in order."""
    if not single_valued or not scope.get("query_string"):
        return []
    query = scope["query_string"].decode("latin-1")
    names = Counter(name for name, _ in parse_qsl(query, keep_blank_values=True))
    return [name for name, count in names.items() if count > 1 and name in single_valued]
