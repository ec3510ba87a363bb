"""/memory/oidc: "Sign in with <provider>" (authorization code + PKCE). Thin: decode, call
the flow (`oidc_flow.py`), answer; every failure is a page with its 4xx or 503."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from memhive_query.dashboard.login_cookie import LoginCookies
from memhive_query.dashboard.oidc_flow import SignInFailed
from memhive_query.dashboard.pages import render
from memhive_query.dashboard.session import start_session
from memhive_query.dashboard.wiring import Dashboard

router = APIRouter(prefix="/memory/oidc", include_in_schema=False)
CALLBACK_PATH = "/memory/oidc/callback"


@router.get("/login")
async def login(request: Request) -> Response:
    dash: Dashboard = request.app.state.dashboard
    if dash.oidc is None:
        return _failed(request, SignInFailed(404, "Sign-in with an identity provider is off."))
    try:
        back = dash.oidc.redirect_uri(str(request.base_url), CALLBACK_PATH)
        address, pending = await dash.oidc.begin(back)
    except SignInFailed as exc:
        return _failed(request, exc)
    response = RedirectResponse(address, status_code=303)
    dash.login_cookies.remember(request, response, pending)
    return response


@router.get("/callback")
async def callback(request: Request) -> Response:
    dash: Dashboard = request.app.state.dashboard
    try:
        if dash.oidc is None:
            raise SignInFailed(404, "Sign-in with an identity provider is off.")
        answer = {k: request.query_params.get(k, "") for k in ("state", "code", "error")}
        _, id_token = await dash.oidc.finish(dash.login_cookies.recall(request), answer)
    except SignInFailed as exc:
        return _failed(request, exc)
    # A page rather than a redirect: this answer belongs to a navigation that came from the
    # provider's site, and browsers hold SameSite=Strict cookies back on such a redirect
    # chain. The page's own move to /memory is same-site, so the new session goes along.
    response = render(request, "signed_in.html", who=None)
    start_session(request, response, id_token)
    LoginCookies.forget(request, response)
    return response


def _failed(request: Request, exc: SignInFailed) -> Response:
    response = render(
        request,
        "error.html",
        exc.status,
        who=None,
        heading="Sign-in failed",
        message=str(exc),
        problems=[],
        retry="/memory/sign-in",
    )
    LoginCookies.forget(request, response)
    return response
