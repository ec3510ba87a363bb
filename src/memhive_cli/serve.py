"""`memhive serve <service>`: one service per process, for distributed deployments."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

from memhive_adapters.runtime.infrastructure import open_infrastructure
from memhive_query.app import create_app
from memhive_settings import MemhiveSettings

from memhive_cli.embedded import stop_on_signals
from memhive_cli.http_server import http_server
from memhive_cli.services import BACKGROUND_SERVICES


async def serve(service: str, settings: MemhiveSettings) -> None:
    async with AsyncExitStack() as stack:
        infra = await open_infrastructure(settings, name=f"memhive-{service}", user=service)
        stack.push_async_callback(infra.close)
        if service == "query":
            server = http_server(await create_app(infra), settings.http_host, settings.http_port)
            stop_on_signals(lambda: setattr(server, "should_exit", True))
            await server.serve()
            return
        running = await BACKGROUND_SERVICES[service](infra)
        await running.start()
        stack.push_async_callback(running.stop)
        stopped = asyncio.Event()
        stop_on_signals(stopped.set)
        print(f"memhive {service} is running against {settings.nats.url}", flush=True)
        await stopped.wait()
