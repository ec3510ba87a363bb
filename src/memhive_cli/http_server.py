"""uvicorn inside our own event loop, with memhive (not uvicorn) owning the signals,
so a stop drains consumers and closes the engines before the process exits."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI


class HttpServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = asyncio.Event()  # set once it accepts connections

    def capture_signals(self):  # type: ignore[override]
        return contextlib.nullcontext()

    async def startup(self, sockets=None) -> None:  # type: ignore[override]
        await super().startup(sockets=sockets)
        if self.started:
            self.listening.set()

    @property
    def port(self) -> int:
        """The port it listens on (with port 0, the one the system chose)."""
        return self.servers[0].sockets[0].getsockname()[1]


def http_server(app: FastAPI, host: str, port: int) -> HttpServer:
    # log_config=None: uvicorn's loggers reach the root handler like every other logger, so
    # they follow MEMHIVE_TELEMETRY__LOG_FORMAT (uvicorn's own config gives them a plain
    # text handler of their own).
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", log_config=None, lifespan="on"
    )
    return HttpServer(config)


async def serve_announcing(server: HttpServer, on_listening: Callable[[int], None]) -> None:
    """`server.serve()`, calling `on_listening(port)` once it accepts connections."""

    async def announce() -> None:
        await server.listening.wait()
        on_listening(server.port)

    task = asyncio.create_task(announce(), name="announce-listening")
    try:
        await server.serve()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


# A server bound to every interface is reached on this machine at loopback.
ANY_ADDRESS = frozenset({"", "0.0.0.0", "::"})


def local_url(host: str, port: int) -> str:
    """Where a client on this machine reaches a server bound to `host`:`port`."""
    host = "127.0.0.1" if host in ANY_ADDRESS else host
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"
