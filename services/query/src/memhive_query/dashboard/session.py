"""Signing in with a pasted token, and CSRF protection for every dashboard form.

- The session cookie holds the token itself: HttpOnly (no script reads it), SameSite=Strict
  (no other site's page sends it), Secure when the page is served over https, path /memory.
  Every request resolves it through the same Authenticator as a bearer header, so a
  revoked token ends the session at once (after the auth cache, 30 s).
- CSRF: a token bound to the session. A random `memhive_csrf` cookie (also HttpOnly,
  SameSite=Strict) is set on the first page; every form carries, in a hidden `csrf_token`
  field, HMAC-SHA256 of that cookie keyed by the session's own secret (its token), and a
  POST whose field is not that value is refused (403) before anything runs. So a
  cookie+field pair taken from another session (someone else's sign-in, planted in this
  browser) fails: making the field takes this session's token, which scripts cannot read.
  Keyed by the session rather than a server key, any gateway replica checks it, and a
  restart breaks no open form. Before sign-in there is no session to bind to, and the
  sign-in form's field is the cookie itself (double submit).
  SameSite=Strict alone would stop most forged posts; the token also covers browsers and
  proxies that do not honour it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from fastapi import Request
from fastapi.responses import Response
from memhive_application.authentication import Authenticator, Unauthenticated
from memhive_domain.principals import Principal

SESSION_COOKIE = "memhive_session"
CSRF_COOKIE = "memhive_csrf"
CSRF_FIELD = "csrf_token"
COOKIE_PATH = "/memory"
SESSION_MAX_AGE_S = 12 * 3600


class CsrfRefused(Exception):
    """A form post without the right CSRF token."""


async def signed_in(request: Request, auth: Authenticator) -> Principal | None:
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    try:
        return await auth.principal_for(f"Bearer {token}")
    except Unauthenticated:
        return None


def csrf_token(request: Request) -> str:
    """The token this browser's forms carry, bound to its session; `remember_csrf` stores
    the cookie it is made from, the first time."""
    return _bound(_browser_nonce(request), request.cookies.get(SESSION_COOKIE))


def remember_csrf(request: Request, response: Response) -> None:
    new = getattr(request.state, "new_csrf", None)
    if new:
        _set_cookie(request, response, CSRF_COOKIE, new, max_age=None)


async def check_csrf(request: Request) -> None:
    form = await request.form()
    sent = form.get(CSRF_FIELD)
    nonce = request.cookies.get(CSRF_COOKIE)
    if not (isinstance(sent, str) and nonce):
        raise CsrfRefused()
    expected = _bound(nonce, request.cookies.get(SESSION_COOKIE))
    if not hmac.compare_digest(sent.encode(), expected.encode()):
        raise CsrfRefused()


def _browser_nonce(request: Request) -> str:
    existing = request.cookies.get(CSRF_COOKIE)
    if existing:
        return existing
    if not hasattr(request.state, "new_csrf"):
        request.state.new_csrf = secrets.token_urlsafe(32)
    return request.state.new_csrf


def _bound(nonce: str, session: str | None) -> str:
    if not session:
        return nonce  # the sign-in form: no session yet
    message = f"memhive-dashboard-csrf:{nonce}".encode()
    return hmac.new(session.encode(), message, hashlib.sha256).hexdigest()


def start_session(request: Request, response: Response, token: str) -> None:
    _set_cookie(request, response, SESSION_COOKIE, token, max_age=SESSION_MAX_AGE_S)


def end_session(request: Request, response: Response) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        path=COOKIE_PATH,
        secure=_secure(request),
        httponly=True,
        samesite="strict",
    )


def _set_cookie(
    request: Request, response: Response, name: str, value: str, max_age: int | None
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=COOKIE_PATH,
        secure=_secure(request),
        httponly=True,
        samesite="strict",
    )


def _secure(request: Request) -> bool:
    # Behind a TLS proxy, uvicorn's --proxy-headers makes the scheme https.
    return request.url.scheme == "https"
