"""The async client's default sender: aiohttp, answering with an `httpx.Response` and failing
with httpx's exceptions (senders.py says why aiohttp). Imported only when an async client is
built to use it, so the CLI (which asks for httpx) never loads aiohttp."""

from __future__ import annotations

import json as jsonlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import aiohttp
import httpx
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from memhive_client.senders import DEFAULT_MAX_CONNECTIONS, query_pairs

# A pooled connection idle this long is not reused: below the server's own keep-alive
# timeout (uvicorn's, memhive's server: 5 s), so a request never goes out on a connection
# the server has closed while this loop was busy elsewhere (nothing read its closing yet).
KEEPALIVE_S = 4.0


class AiohttpSender:
    """One aiohttp session, opened by the first request (it belongs to the event loop that
    runs it, so a client may be built outside any loop)."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        timeout_s: float,
        max_connections: int | None = None,
        keepalive_s: float = KEEPALIVE_S,
    ) -> None:
        self._base = base_url.rstrip("/")  # a path in it is kept, as httpx's base_url does
        self._headers = headers
        # As httpx's timeout: each of connecting, waiting for a pooled connection (`connect`)
        # and each read; no bound on the whole exchange.
        self._timeout = aiohttp.ClientTimeout(
            total=None, connect=timeout_s, sock_connect=timeout_s, sock_read=timeout_s
        )
        self._max_connections = max_connections or DEFAULT_MAX_CONNECTIONS
        self._keepalive_s = keepalive_s
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections, keepalive_timeout=self._keepalive_s
            )
            proxy, proxy_auth = _env_proxy(URL(self._base))
            # Not `trust_env`: aiohttp would then look up the proxy and ~/.netrc on a worker
            # thread for every request (two thread hops a call). Every request goes to one
            # origin, so its proxy is looked up once; like httpx, no netrc.
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers=self._headers,
                timeout=self._timeout,
                proxy=proxy,
                proxy_auth=proxy_auth,
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
            # As httpx encodes a body: NaN and infinities are refused, not sent as non-JSON.
            body = jsonlib.dumps(
                json, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode()
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


def _env_proxy(origin: URL) -> tuple[URL | None, aiohttp.BasicAuth | None]:
    """The proxy HTTP(S)_PROXY and NO_PROXY name for `origin`, as httpx reads them."""
    try:
        return get_env_proxy_for_url(origin)
    except LookupError:  # none set, or NO_PROXY covers the host
        return None, None


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
