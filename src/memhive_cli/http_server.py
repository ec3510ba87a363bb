"""uvicorn inside our own event loop, with memhive (not uvicorn) owning the signals,
so a stop drains consumers and closes the engines before the process exits."""

from __future__ import annotations

import contextlib

import uvicorn
from fastapi import FastAPI


class HttpServer(uvicorn.Server):
    def capture_signals(self):  # type: ignore[override]
        return contextlib.nullcontext()


def http_server(app: FastAPI, host: str, port: int) -> HttpServer:
    return HttpServer(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
