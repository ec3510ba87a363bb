"""The async client's default sender (aiohttp) against real sockets on loopback: it writes
requests as httpx would, its answers are read and retried as over httpx, and it fails with
the httpx exceptions callers catch."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from aiohttp import web
from memhive_client import AsyncMemhiveClient, InvalidRequest, RetryPolicy
from memhive_client.aiohttp_sender import KEEPALIVE_S, AiohttpSender

from memhive_cli.http_server import http_server

NO_WAIT = RetryPolicy(attempts=3, backoff_s=0.0)


@asynccontextmanager
async def serving(
    handler: Callable, port: int = 0, keepalive_s: float = 75.0
) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app, keepalive_timeout=keepalive_s)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    finally:
        await runner.cleanup()


async def echo(request: web.Request) -> web.Response:
    return web.json_response(
        {
            "method": request.method,
            "path": request.raw_path.split("?")[0],
            "query": list(request.query.items()),
            "authorization": request.headers.get("Authorization"),
            "content_type": request.headers.get("Content-Type"),
            "body": (await request.read()).decode(),
        },
        headers={"X-Seen": "yes"},
    )


async def test_a_request_goes_out_as_httpx_would_write_it() -> None:
    async with serving(echo) as url:
        sender = AiohttpSender(url + "/prefix/", {"Authorization": "Bearer t0k"}, 5.0)
        try:
            answer = await sender.send(
                "POST",
                "/v1/memories/a%2Fb",
                {"wait": "indexed", "kind": ["fact", "event"], "force": True},
                {"body": "café ünïcode"},
            )
        finally:
            await sender.aclose()
    seen = answer.json()
    assert answer.status_code == 200 and answer.headers["x-seen"] == "yes"
    assert seen["path"] == "/prefix/v1/memories/a%2Fb"  # the base's path kept, quoting kept
    assert seen["query"] == [
        ["wait", "indexed"],
        ["kind", "fact"],
        ["kind", "event"],
        ["force", "true"],
    ]
    assert seen["authorization"] == "Bearer t0k"
    assert seen["content_type"] == "application/json"
    assert json.loads(seen["body"]) == {"body": "café ünïcode"}


async def test_a_body_httpx_would_refuse_is_refused_before_it_is_sent() -> None:
    sender = AiohttpSender("http://127.0.0.1:1", {}, 5.0)  # nothing listens: nothing sent
    with pytest.raises(ValueError):
        await sender.send("POST", "/v1/recall", {}, {"min_confidence": float("nan")})
    with pytest.raises(ValueError):
        httpx.Request("POST", "http://memhive/v1/recall", json={"min_confidence": float("nan")})


async def test_error_answers_are_read_by_the_client_as_over_httpx() -> None:
    async def refuse(request: web.Request) -> web.Response:
        body = {"detail": "kind: unknown", "problems": [{"field": "kind", "message": "unknown"}]}
        return web.json_response(body, status=422)

    async with serving(refuse) as url, AsyncMemhiveClient(url, "t", retry=NO_WAIT) as client:
        with pytest.raises(InvalidRequest) as caught:
            await client.save("nonsense", "x")
    assert caught.value.problems[0].field == "kind"


async def test_503_is_retried_over_aiohttp_too() -> None:
    answers = [503, 503, 200]

    async def flaky(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"}, status=answers.pop(0))

    async with serving(flaky) as url, AsyncMemhiveClient(url, "t", retry=NO_WAIT) as client:
        assert await client.health() == {"status": "ok"}
    assert answers == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_refused_connection_is_retried_then_raised_as_httpx_connect_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    async with AsyncMemhiveClient(url, "t", retry=NO_WAIT) as client:
        with pytest.raises(httpx.ConnectError):
            await client.health()


async def test_a_server_that_hangs_up_is_an_httpx_transport_error() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    async with server, AsyncMemhiveClient(url, "t", retry=NO_WAIT) as client:
        with pytest.raises(httpx.TransportError):
            await client.health()


async def test_a_silent_server_is_an_httpx_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # never answers; returns once the client gives up and hangs up
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    async with server, AsyncMemhiveClient(url, "t", retry=NO_WAIT, timeout_s=0.2) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.health()


def test_a_client_built_outside_an_event_loop_runs_in_the_one_that_awaits_it() -> None:
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    port = closed_port()
    client = AsyncMemhiveClient(f"http://127.0.0.1:{port}", "t")  # no loop runs here

    async def use() -> dict:
        async with serving(ok, port), client:
            return await client.health()

    assert asyncio.run(use()) == {"status": "ok"}


async def test_a_request_waiting_for_a_pooled_connection_gives_up_at_the_timeout() -> None:
    """The only connection is held by an answer that trickles in (each read within the
    timeout, never done): the next request waits for the pool no longer than the timeout."""

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\n")
        try:
            while True:
                writer.write(b"X-Still: coming\r\n")
                await writer.drain()
                await asyncio.sleep(0.05)
        except ConnectionError:
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    async with (
        server,
        AsyncMemhiveClient(url, "t", retry=NO_WAIT, timeout_s=0.3, max_connections=1) as client,
    ):
        holding = asyncio.ensure_future(client.health())
        await asyncio.sleep(0.1)  # the first request holds the pool's one connection
        with pytest.raises(httpx.ConnectTimeout):
            await asyncio.wait_for(client.health(), 3)
        holding.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await holding


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture
def no_proxy_set(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


@asynccontextmanager
async def proxy_recording(request_lines: list[str]) -> AsyncIterator[str]:
    """A forward proxy that answers every request itself, noting its request line."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_lines.append((await reader.readline()).decode().strip())
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        body = b'{"proxied": true}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()


async def test_requests_go_through_the_proxy_the_environment_names(no_proxy_set) -> None:
    lines: list[str] = []
    async with proxy_recording(lines) as proxy:
        no_proxy_set.setenv("HTTP_PROXY", proxy)
        sender = AiohttpSender("http://memhive.invalid:8080", {}, 5.0)  # resolved by the proxy
        try:
            answers = [await sender.send("GET", f"/v1/n{n}", {}, None) for n in range(2)]
        finally:
            await sender.aclose()
    assert [a.json() for a in answers] == [{"proxied": True}] * 2
    assert lines == [f"GET http://memhive.invalid:8080/v1/n{n} HTTP/1.1" for n in range(2)]


async def test_a_host_no_proxy_names_is_reached_directly(no_proxy_set) -> None:
    no_proxy_set.setenv("HTTP_PROXY", "http://127.0.0.1:1")  # nothing listens there
    no_proxy_set.setenv("NO_PROXY", "127.0.0.1")
    async with serving(echo) as url:
        sender = AiohttpSender(url, {}, 5.0)
        try:
            answer = await sender.send("GET", "/v1/direct", {}, None)
        finally:
            await sender.aclose()
    assert answer.json()["path"] == "/v1/direct"


async def test_a_connection_the_server_closed_while_the_loop_was_busy_is_not_reused() -> None:
    """The server closes an idle connection (uvicorn: after 5 s) while the caller's loop is
    blocked, so nothing has read the close when the next save goes out: a connection idle
    past the sender's keep-alive (shorter than the server's) is replaced, not written into."""
    async with serving(echo, keepalive_s=0.5) as url:
        sender = AiohttpSender(url, {}, 5.0, keepalive_s=0.3)
        try:
            await sender.send("POST", "/v1/memories", {}, {"body": "first"})
            time.sleep(0.8)  # noqa: ASYNC251 - the point: a loop blocked past the server's timeout
            answer = await sender.send("POST", "/v1/memories", {}, {"body": "second"})
        finally:
            await sender.aclose()
    assert json.loads(answer.json()["body"]) == {"body": "second"}


def test_the_sender_lets_go_of_idle_connections_before_memhives_server_closes_them() -> None:
    server = http_server(web.Application(), "127.0.0.1", 0)  # any app: only its config
    assert server.config.timeout_keep_alive > KEEPALIVE_S
