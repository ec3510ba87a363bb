"""How the async client puts a request on the wire: over aiohttp by default
(`aiohttp_sender.py`), or over httpx when asked (`sender="httpx"`) or given a transport (an
ASGI app in tests, a mock). Both answer with an `httpx.Response` and fail with httpx's
exceptions, so retries, errors and readers are written once.

Why aiohttp and not httpx by default: one client in sequence spends most of its CPU in the
HTTP library, not in memhive. On a 2-core machine, against the same gateway: 0.13 ms of
client CPU per `GET /healthz` over aiohttp against 0.63 over `httpx.AsyncClient`, and 0.37
against 1.1 ms per `accepted` save; httpx over aiohttp's transport (httpx-aiohttp) still
pays httpx's request and response models (0.8 ms). docs/benchmarks.md, "The client's half".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import httpx

DEFAULT_MAX_CONNECTIONS = 100  # httpx's own default


class AsyncSender(Protocol):
    async def send(
        self, method: str, path: str, params: Mapping[str, Any], json: object
    ) -> httpx.Response: ...

    async def aclose(self) -> None: ...


class HttpxSender:
    """An `httpx.AsyncClient`, over the caller's transport if any."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int | None = None,
    ) -> None:
        limits = httpx.Limits(max_connections=max_connections or DEFAULT_MAX_CONNECTIONS)
        self._http = httpx.AsyncClient(
            base_url=base_url,
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            limits=limits,
        )

    async def send(
        self, method: str, path: str, params: Mapping[str, Any], json: object
    ) -> httpx.Response:
        return await self._http.request(method, path, params=params, json=json)

    async def aclose(self) -> None:
        await self._http.aclose()


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
