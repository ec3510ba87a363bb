"""Rendering a dashboard page: the templates, the context every page shares, no caching."""

from __future__ import annotations

from pathlib import Path

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from memhive_domain.confidence import DEFAULT_MIN_CONFIDENCE
from memhive_domain.kinds import MemoryKind
from memhive_domain.recall import MAX_RESULTS
from memhive_domain.scopes import Scope, Visibility
from memhive_domain.sources import Source

from memhive_query.dashboard.bulletin_html import bulletin_html
from memhive_query.dashboard.session import CSRF_FIELD, csrf_token, remember_csrf
from memhive_query.dashboard.standing import STALE_FROM

TEMPLATES = Jinja2Templates(directory=Path(__file__).parent / "templates")
TEMPLATES.env.filters["bulletin_html"] = bulletin_html
TEMPLATES.env.globals |= {
    "max_results": MAX_RESULTS,
    "min_confidence": DEFAULT_MIN_CONFIDENCE,
    "stale_from": STALE_FROM,
}


def render(
    request: Request, template: str, status_code: int = 200, **context: object
) -> HTMLResponse:
    context |= {
        "csrf_field": CSRF_FIELD,
        "csrf_token": csrf_token(request),
        "kinds": [k.value for k in MemoryKind],
        "sources": [s.value for s in Source],
        "scopes": [s.value for s in Scope],
        "visibilities": [v.value for v in Visibility],
    }
    response = TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
    response.headers["Cache-Control"] = "no-store"
    remember_csrf(request, response)
    return response
