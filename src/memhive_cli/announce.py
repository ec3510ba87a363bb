"""`memhive run` records where it listens once its HTTP server is up (`instance.py`), and
removes the record when it stops, so other commands find it without being told."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator

from memhive_settings import MemhiveSettings

from memhive_cli.http_server import HttpServer
from memhive_cli.instance import Instance, remove_instance, write_instance

# Where a client reaches a server bound to every interface.
ANY_ADDRESS = {"", "0.0.0.0", "::"}


@contextlib.asynccontextmanager
async def announced(settings: MemhiveSettings, server: HttpServer) -> AsyncIterator[None]:
    written: list[Instance] = []
    task = asyncio.create_task(_announce(settings, server, written), name="announce")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        for instance in written:
            remove_instance(instance, os.environ)


async def _announce(settings: MemhiveSettings, server: HttpServer, written: list[Instance]) -> None:
    await server.listening.wait()
    instance = instance_of(settings, server.port)
    write_instance(instance, os.environ)
    written.append(instance)


def instance_of(settings: MemhiveSettings, port: int) -> Instance:
    host = "127.0.0.1" if settings.http_host in ANY_ADDRESS else settings.http_host
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    return Instance(settings.data_dir.absolute(), url, settings.nats.url, os.getpid())
