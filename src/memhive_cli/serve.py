"""`memhive serve <service>`: one service per process, for distributed deployments.

Every service listens on MEMHIVE_HTTP_PORT: the gateway with its API, a background service
with /healthz, /readyz and /metrics only (probes and Prometheus scrapes).
"""

from __future__ import annotations

from contextlib import AsyncExitStack

from fastapi import FastAPI
from memhive_adapters.runtime.infrastructure import Infrastructure, open_infrastructure
from memhive_adapters.runtime.model_check import check_models
from memhive_settings import MemhiveSettings, TelemetrySettings
from memhive_telemetry import Telemetry, install_telemetry

from memhive_cli.garbage_collection import freeze_startup_objects
from memhive_cli.http_server import http_server, local_url, serve_announcing
from memhive_cli.services import BACKGROUND_SERVICES
from memhive_cli.signals import stop_on_signals

SERVICES = ("query", *BACKGROUND_SERVICES)
MODEL_USERS = frozenset({"query", "embed"})  # the encoder (both), the reranker (query)


def telemetry_settings_for(service: str, settings: MemhiveSettings) -> TelemetrySettings:
    """The service's telemetry settings; traces and metrics name the service unless the
    operator chose a name."""
    if service not in SERVICES:
        raise SystemExit(f"unknown service {service!r}; choose from {list(SERVICES)}")
    name = settings.telemetry.service_name
    if name == "memhive":
        name = f"memhive-{service.replace('_', '-')}"
    return settings.telemetry.model_copy(update={"service_name": name})


def prepare(service: str, settings: MemhiveSettings) -> Telemetry:
    """Before touching the network: the process's telemetry (a bad exporter fails here)."""
    return install_telemetry(telemetry_settings_for(service, settings))


async def serve(service: str, settings: MemhiveSettings) -> None:
    if service in MODEL_USERS:  # a model that cannot be found stops it before anything starts
        check_models(settings)
    telemetry = prepare(service, settings)
    async with AsyncExitStack() as stack:
        stack.callback(telemetry.shutdown)
        infra = await open_infrastructure(settings, name=f"memhive-{service}", user=service)
        stack.push_async_callback(infra.close)
        app = await _app_of(service, infra, stack)
        server = http_server(app, settings.http_host, settings.http_port)
        stop_on_signals(lambda: setattr(server, "should_exit", True))

        def listening(port: int) -> None:
            freeze_startup_objects()
            print(ready_line(service, settings, port), flush=True)

        await serve_announcing(server, listening)


def ready_line(service: str, settings: MemhiveSettings, port: int) -> str:
    """Once it serves: `memhive run`, its parent when it is a child, reads its probes' URL
    here (`service_process.py`); an operator reads where it runs."""
    probes = local_url(settings.http_host, port)
    return f"memhive {service} is running against {settings.nats.url} (probes: {probes})"


async def _app_of(service: str, infra: Infrastructure, stack: AsyncExitStack) -> FastAPI:
    # Imported here: a background service needs the three probe routes, not the gateway.
    if service == "query":
        from memhive_query.app import create_app

        return await create_app(infra)
    from memhive_query.ops_app import create_ops_app

    running = await BACKGROUND_SERVICES[service](infra)
    await running.start()
    stack.push_async_callback(running.stop)
    return create_ops_app(infra, service)
