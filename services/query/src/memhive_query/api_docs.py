"""/docs served from the `swagger-ui-bundle` package: works on a machine without internet.

FastAPI's default page loads Swagger UI from a CDN (a blank page offline), so the app is
built with docs_url=None and this module serves the same page with the bundle's files.
ReDoc is not kept: no maintained PyPI package ships it, and Swagger UI covers the need.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"


def install_api_docs(app: FastAPI) -> None:
    app.mount(ASSETS_PATH, StaticFiles(directory=swagger_ui_path), name="swagger-ui")

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": True},
        )
