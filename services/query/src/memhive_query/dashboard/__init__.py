"""The /memory dashboard: server-rendered pages (Jinja2, htmx) over the gateway's use cases."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from memhive_query.dashboard import oidc_routes
from memhive_query.dashboard.routes import SignInRequired, router, to_sign_in
from memhive_query.dashboard.security_headers import SecurityHeaders
from memhive_query.dashboard.wiring import build_dashboard
from memhive_query.gateway import Gateway

STATIC_DIR = Path(__file__).parent / "static"


async def mount_dashboard(app: FastAPI, gateway: Gateway) -> None:
    app.state.dashboard = await build_dashboard(gateway)
    app.include_router(router)
    app.add_exception_handler(SignInRequired, to_sign_in)
    app.include_router(oidc_routes.router)
    app.mount("/memory/static", StaticFiles(directory=STATIC_DIR), name="dashboard-static")
    app.add_middleware(SecurityHeaders, prefixes=["/memory"])
