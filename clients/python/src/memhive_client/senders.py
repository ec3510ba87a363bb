"""How the async client puts a request on the wire: over aiohttp by default, or over an httpx
transport the caller gives (an ASGI app in tests, a mock). Both answer with an
`httpx.Response` and fail with httpx's exceptions, so retries, errors and readers are written
once.

Why aiohttp and not httpx by default: one client in sequence spends most of its CPU in the
HTTP library, not in memhive. On a 2-core machine, against the same gateway: 0.13 ms of
client CPU per `GET /healthz` over aiohttp against 0.63 over `httpx.AsyncClient`, and 0.37
against 1.1 ms per `accepted` save; httpx over aiohttp's transport (httpx-aiohttp) still
pays httpx's request and response models (0.8 ms). docs/benchmarks.md, "The client's half".
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

import aiohttp
import httpx
from yarl import URL


class AsyncSender(Protocol):
    async def send(
        self, method: str, path: str, params: Mapping[str, Any], json: object
    ) -> httpx.Response: ...

    async def aclose(self) -> None: ...


class HttpxSender:
    """An `httpx.AsyncClient` over the caller's transport."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        timeout_s: float,
        transport: httpx.AsyncBaseTransport,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout_s, transport=transport
        )

    async def send(
        self, method: str, path: str, params: Mapping[str, Any], json: object
    ) -> httpx.Response:
        return await self._http.request(method, path, params=params, json=json)

    async def aclose(self) -> None:
        await self._http.aclose()


class AiohttpSender:
    """One aiohttp session, opened by the first request (it belongs to the event loop that
    runs it, so a client may be built outside any loop)."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        timeout_s: float,
        max_connections: int | None = None,
    ) -> None:
        self._base = base_url.rstrip("/")  # a path in it is kept, as httpx's base_url does
        self._headers = headers
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=timeout_s, sock_read=timeout_s
        )
        self._max_connections = max_connections or 100
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._max_connections)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, timeout=self._timeout
            )
        return self._session

    async def send(
        self, method: str, path: str, params: Mapping[str, Any], json: object
    ) -> httpx.Response:
        url = URL(self._base + path, encoded=True)  # the calls quote their path segments
        if params:
            url = url.extend_query(query_pairs(params))
        body, headers = None, None
        if json is not None:
            body = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":")).encode()
            headers = {"Content-Type": "application/json"}
        with httpx_errors(method, url):
            async with self._open().request(method, url, data=body, headers=headers) as answer:
                content = await answer.read()
                # No `request=`: building an httpx.Request costs more than the rest of the
                # answer; nothing the client reads from a response needs it.
                return httpx.Response(
                    answer.status,
                    headers=list(answer.raw_headers),
                    content=content,
                    extensions={"reason_phrase": (answer.reason or "").encode()},
                )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def query_pairs(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The query as httpx writes it: a list repeats its key, booleans are lower-case, None
    is an empty value."""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            pairs.append((key, _primitive(item)))
    return pairs


def _primitive(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    return str(value)


# The first that matches: aiohttp's connect timeout is also a TimeoutError and a ClientError.
_AS_HTTPX: tuple[tuple[type[BaseException], type[httpx.TransportError]], ...] = (
    (aiohttp.ClientConnectorError, httpx.ConnectError),
    (aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),
    (TimeoutError, httpx.ReadTimeout),  # aiohttp's socket timeouts are TimeoutErrors
    (aiohttp.ClientError, httpx.ReadError),
)


@contextmanager
def httpx_errors(method: str, url: URL) -> Iterator[None]:
    """aiohttp's failures as the httpx exceptions the client has always raised (callers catch
    `httpx.TransportError`; a refused connection, `httpx.ConnectError`, is retried)."""
    try:
        yield
    except (aiohttp.ClientError, TimeoutError) as exc:
        theirs = next(ours for kind, ours in _AS_HTTPX if isinstance(exc, kind))
        request = httpx.Request(method, str(url))
        raise theirs(str(exc) or type(exc).__name__, request=request) from exc
