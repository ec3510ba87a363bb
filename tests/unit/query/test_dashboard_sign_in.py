"""Every dashboard page needs a live session: without one (or with a token the authenticator
does not know) the page is not run and the answer is a redirect to the sign-in page."""

from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI
from memhive_application.authentication import Authenticator
from memhive_query.dashboard.routes import SignInRequired, router, to_sign_in
from memhive_query.dashboard.session import SESSION_COOKIE

from tests.fakes import FakeTokenDirectory, FixedClock

PAGES = [
    ("GET", "/memory"),
    ("GET", "/memory/m/some-id"),
    ("GET", "/memory/m/some-id/forget"),
    ("POST", "/memory/m/some-id/forget"),
    ("POST", "/memory/m/some-id/pin"),
    ("GET", "/memory/stats"),
]


def client(cookies: dict[str, str]) -> httpx.AsyncClient:
    app = FastAPI()
    # The pages are never reached, so the dashboard needs nothing but its authenticator.
    app.state.dashboard = SimpleNamespace(auth=Authenticator(FakeTokenDirectory(), FixedClock()))
    app.include_router(router)
    app.add_exception_handler(SignInRequired, to_sign_in)
    transport = httpx.ASGITransport(app)
    return httpx.AsyncClient(transport=transport, base_url="http://memhive", cookies=cookies)


@pytest.mark.parametrize("cookies", [{}, {SESSION_COOKIE: "not-a-token"}])
@pytest.mark.parametrize(("method", "path"), PAGES)
async def test_a_page_without_a_session_redirects_to_sign_in(method, path, cookies) -> None:
    async with client(cookies) as http:
        response = await http.request(
            method, path, data={"pinned": "true"} if method == "POST" else None
        )
    assert response.status_code == 303
    assert response.headers["location"] == "/memory/sign-in"
