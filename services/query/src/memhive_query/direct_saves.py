"""`POST /v1/memories` answered before FastAPI's layers, for the saves that need nothing of them.

A save is the call agents make most, and what FastAPI wraps around it (its telemetry, its
middleware stack, the router, the dependency solver, the request handler) cost the gateway
about as much CPU as the save's own use case (docs/benchmarks.md, "Saves answered before
FastAPI"). `GatewayApp` hands each request to `DirectSaves` first, which answers a save itself
when everything FastAPI would check before the route is fine:

- the body is JSON (`Content-Type: application/json`), within the guards' bound
  (`RequestGuards`), parses and is a valid `SaveRequest`;
- `wait`, if sent, is sent once and is a valid wait;
- the bearer authenticates;
- no span is recorded (no exporter: the default). With one, FastAPI records the request's
  span as it does every other request's.

It then calls the same use case and renders the same answer as the route
(`routes/memories.answer_save`); an error the use case raises is answered by the handler the
app installed for it (`errors.py`), and any other error is a 500, as FastAPI's error
middleware answers. It records FastAPI's request metrics (`http_telemetry.ServerMetrics`) and
runs in the caller's trace (`traceparent`), as FastAPI does. Anything else goes on to FastAPI
with its body unchanged, so every refusal before the use case (401, 413, 422, ...) is FastAPI's
own answer, word for word. The route itself stays FastAPI's: the OpenAPI document and every
other method of the path come from it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, get_args
from urllib.parse import parse_qsl

from fastapi import FastAPI
from memhive_application.authentication import Authenticator
from memhive_domain.principals import Principal
from memhive_telemetry.propagation import TraceCause, cause_of, span_caused_by, spans_recorded
from opentelemetry.trace import SpanKind
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memhive_query.http_telemetry import ServerMetrics
from memhive_query.request_guards import MAX_REQUEST_BYTES
from memhive_query.routes.memories import answer_save
from memhive_query.schemas import SaveRequest
from memhive_query.use_cases.audit import AuditedSave
from memhive_query.use_cases.save import Wait

PATH = "/v1/memories"
WAITS = frozenset(get_args(Wait))
DEFAULT_WAIT: Wait = "indexed"  # the route's default
TRACE_HEADERS = (b"traceparent", b"tracestate")

Taken = tuple[Principal, SaveRequest, Wait]


class GatewayApp(FastAPI):
    """FastAPI, with saves offered to `DirectSaves` before any of its layers."""

    _direct: DirectSaves | None = None

    def answer_saves_directly(
        self, auth: Authenticator, save: AuditedSave, max_bytes: int = MAX_REQUEST_BYTES
    ) -> None:
        """From now on; errors are answered by this app's exception handlers."""
        handlers = self.exception_handlers  # read when an error comes: later handlers count
        self._direct = DirectSaves(super().__call__, auth, save, handlers, max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._direct is not None:
            return await self._direct(scope, receive, send)
        await super().__call__(scope, receive, send)


class DirectSaves:
    """`app` answers whatever this does not (FastAPI, with every layer)."""

    def __init__(
        self,
        app: ASGIApp,
        auth: Authenticator,
        save: AuditedSave,
        handlers: Mapping[Any, Any],
        max_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self._app, self._auth, self._save = app, auth, save
        self._handlers, self._max_bytes = handlers, max_bytes
        self._metrics = ServerMetrics()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _a_save(scope) or spans_recorded() or _declared_too_large(scope, self._max_bytes):
            return await self._app(scope, receive, send)
        received, whole = await _received(receive, self._max_bytes)
        taken = await self._taken(scope, _body(received)) if whole else None
        if taken is None:  # FastAPI answers, from the same messages
            return await self._app(scope, _replaying(received, receive), send)
        await self._answer(scope, receive, send, taken)

    async def _taken(self, scope: Scope, body: bytes) -> Taken | None:
        """The caller, the request and its wait, when this save needs nothing FastAPI does."""
        if not _is_json(_header(scope, b"content-type") or ""):
            return None
        wait = _wait(scope.get("query_string", b""))
        if wait is None:
            return None
        try:  # as FastAPI reads a body (json.loads), then validates what it parsed
            request = SaveRequest.model_validate(json.loads(body))
        except (ValueError, RecursionError):  # undecodable, unparsable or invalid
            return None
        try:
            who = await self._auth.principal_for(_header(scope, b"authorization"))
        except Exception:  # refused, or the bus unavailable: FastAPI's answer (401, 503)
            return None
        return who, request, wait

    async def _answer(self, scope: Scope, receive: Receive, send: Send, taken: Taken) -> None:
        status: int | None = None

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        finish, error = self._metrics.begin(scope), None
        try:
            with span_caused_by(
                f"POST {PATH}", _causes(scope), source=__name__, kind=SpanKind.SERVER
            ):
                await self._respond(scope, receive, sending, taken, lambda: status is not None)
        except BaseException as exc:
            error = exc
            raise
        finally:
            finish(PATH, status, error)

    async def _respond(
        self, scope: Scope, receive: Receive, send: Send, taken: Taken, started: Callable[[], bool]
    ) -> None:
        try:
            response = await answer_save(self._save, *taken)
        except Exception as exc:
            handler = self._handler_for(exc)
            if handler is None:
                if not started():  # as Starlette's ServerErrorMiddleware: a 500, then raise
                    await PlainTextResponse("Internal Server Error", 500)(scope, receive, send)
                raise
            response = await handler(Request(scope), exc)
        await response(scope, receive, send)

    def _handler_for(self, exc: Exception) -> Callable[..., Any] | None:
        """The app's handler for `exc`'s class or its nearest base, as Starlette looks it up."""
        for cls in type(exc).__mro__:
            if cls in self._handlers:
                return self._handlers[cls]
        return None


def _a_save(scope: Scope) -> bool:
    return scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == PATH


def _declared_too_large(scope: Scope, limit: int) -> bool:
    declared = _header(scope, b"content-length")
    return declared is not None and (not declared.isdigit() or int(declared) > limit)


async def _received(receive: Receive, limit: int) -> tuple[list[Message], bool]:
    """The request's messages up to its whole body, or up to `limit` bytes of it, and
    whether the body is whole."""
    received: list[Message] = []
    size = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            return received, False  # disconnected: FastAPI's to see
        size += len(message.get("body", b""))
        if size > limit:
            return received, False
        if not message.get("more_body", False):
            return received, True


def _body(received: list[Message]) -> bytes:
    return b"".join(message.get("body", b"") for message in received)


def _replaying(received: list[Message], receive: Receive) -> Receive:
    """`receive` as it was: the messages read so far given again, then the rest."""
    pending = list(received)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of a header, as Starlette's `Request.headers.get` reads it."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _causes(scope: Scope) -> list[TraceCause]:
    """The caller's span, when its `traceparent` names one."""
    carried = {n.decode(): v for n in TRACE_HEADERS if (v := _header(scope, n)) is not None}
    cause = cause_of(carried) if carried else None
    return [cause] if cause is not None else []


def _is_json(content_type: str) -> bool:
    """`application/json`, with parameters or not; other JSON types (`+json`) go to FastAPI."""
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def _wait(query_string: bytes) -> Wait | None:
    """`wait` as sent once and valid, or the route's default when not sent; None otherwise."""
    sent = [
        value
        for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
        if name == "wait"
    ]
    if not sent:
        return DEFAULT_WAIT
    if len(sent) == 1 and sent[0] in WAITS:
        return sent[0]  # type: ignore[return-value]
    return None
