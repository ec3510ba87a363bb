"""/docs: Swagger UI 5 (it reads the OpenAPI 3.1 document FastAPI writes), vendored from npm
into `swagger_ui/` (see UPDATING.md there), so the page works on a machine without internet.

FastAPI's own page loads Swagger UI from a CDN and starts it with an inline script, which
the page's Content-Security-Policy refuses; so the app is built with docs_url=None and this
page loads the bundle and `start-docs.js` from this origin. ReDoc is not kept.
"""

from __future__ import annotations

import html
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from memhive_query.dashboard.security_headers import STRICT_POLICY, SecurityHeaders

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
ASSETS_DIR = Path(__file__).parent / "swagger_ui"
# Swagger UI's stylesheet draws its icons as data: URIs.
DOCS_POLICY = STRICT_POLICY.replace("img-src 'self'", "img-src 'self' data:")

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title}</title>
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
  <link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui" data-openapi-url="{openapi_url}"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="{assets}/start-docs.js"></script>
</body>
</html>
"""


def install_api_docs(app: FastAPI) -> None:
    app.mount(ASSETS_PATH, StaticFiles(directory=ASSETS_DIR), name="swagger-ui")
    app.add_middleware(SecurityHeaders, prefixes=[DOCS_PATH], policy=DOCS_POLICY)
    page = PAGE.format(
        title=html.escape(f"{app.title} API"),
        assets=ASSETS_PATH,
        openapi_url=html.escape(app.openapi_url or "/openapi.json"),
    )

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(page)
