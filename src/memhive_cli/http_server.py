"""uvicorn inside our own event loop, with memhive (not uvicorn) owning the signals,
so a stop drains consumers and closes the engines before the process exits."""

from __future__ import annotations

import asyncio
import contextlib

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
