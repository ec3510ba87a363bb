"""Composition root of the query gateway: create_app(infra) builds the FastAPI app."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.probes import InfrastructureProbe
from memhive_ports import ServiceProcesses
from memhive_telemetry import install_telemetry

from memhive_query.api_docs import install_api_docs
from memhive_query.dashboard import mount_dashboard
from memhive_query.direct_saves import GatewayApp
from memhive_query.errors import install_error_handlers
from memhive_query.gateway import build_gateway
from memhive_query.http_telemetry import http_telemetry
from memhive_query.mcp.request_origin import McpOrigins
from memhive_query.mcp_mount import mount_mcp
from memhive_query.openapi import errors
from memhive_query.request_guards import RequestGuards
from memhive_query.routes import (
    activity,
    admin,
    agent_hooks,
    audit,
    bulletins,
    consolidation,
    edges,
    exchange,
    flags,
    health,
    kv,
    memories,
    products,
    recall,
    revisions,
    scopes,
    skills,
    tokens,
)


async def create_app(
    infra: Infrastructure, service_processes: ServiceProcesses | None = None
) -> GatewayApp:
    """`service_processes`: the children a `memhive run` started, whose probes and metrics
    this app's /readyz and /metrics include."""
    install_telemetry(infra.settings.telemetry)  # once per process; /metrics renders it
    gateway = await build_gateway(infra)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        await gateway.start()
        try:
            async with mcp_sessions.run(), loopback:
                yield
        finally:
            await gateway.stop()

    app = GatewayApp(
        title="memhive",
        summary="Shared long-term memory for AI agents",
        version="0.1.0",
        lifespan=lifespan,
        telemetry=http_telemetry(),
        docs_url=None,  # served offline by install_api_docs
        redoc_url=None,
        # Every request passes the body-size guard (request_guards.py) before its route, and
        # may find the bus unavailable (503) or, for a write, the disk nearly full (507).
        responses=errors(413, 503, 507),
    )
    app.state.gateway = gateway
    app.state.health_probe = InfrastructureProbe(infra)
    app.state.service_processes = service_processes
    install_error_handlers(app)
    routers = (
        consolidation,
        memories,
        flags,
        skills,
        recall,
        health,
        revisions,
        admin,
        edges,
        bulletins,
        products,
        scopes,
        kv,
        activity,
        exchange,
        agent_hooks,
    )
    for module in (*routers, tokens, audit):
        app.include_router(module.router)
    await mount_dashboard(app, gateway)
    install_api_docs(app)
    settings = infra.settings
    origins = McpOrigins.for_gateway(
        settings.http_host,
        hosts=settings.query.mcp_allowed_hosts,
        origins=settings.query.mcp_allowed_origins,
    )
    mcp_sessions, loopback = mount_mcp(app, gateway.auth, origins)  # last: it mounts at "/"
    # Outermost: before MCP too. An import takes a whole file, so its path has its own bound.
    larger = {"/v1/import": settings.query.import_max_bytes}
    app.add_middleware(
        RequestGuards, openapi=app.openapi, route_paths=lambda: _route_paths(app), larger=larger
    )
    # Most saves are answered before all of the above: they need none of it (direct_saves.py).
    app.answer_saves_directly(gateway.auth, gateway.save)
    return app


def _route_paths(app: FastAPI) -> list[str]:
    """Each route's path as declared, its router's prefix included."""
    return [context.path for context in iter_route_contexts(app.routes) if context.path]
