"""The OIDC login cookie: the pending sign-in (state, nonce, PKCE verifier) between the
redirect to the provider and its answer, kept by the browser rather than the server so any
replica can take the callback.

HMAC-SHA256 over the payload and its expiry (stdlib `hmac`: ten lines, no dependency), so
a cookie that was not made here, was edited or is older than `login_max_age_s` counts as
none. HttpOnly, path /memory/oidc, and SameSite=**Lax**: the callback is a top-level
navigation coming back from the provider's site, which a Strict cookie would miss. It is
deleted by the callback, so one login cookie serves one answer.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time

from fastapi import Request
from fastapi.responses import Response
from memhive_settings import OidcSettings

from memhive_query.dashboard.oidc_flow import PendingLogin

LOGIN_COOKIE = "memhive_oidc_login"
LOGIN_COOKIE_PATH = "/memory/oidc"
MAX_COOKIE_CHARS = 2048


class LoginCookies:
    def __init__(self, settings: OidcSettings) -> None:
        secret = settings.cookie_secret
        # Without a configured secret, one per process: a restart ends pending sign-ins.
        self._key = secret.get_secret_value().encode() if secret else secrets.token_bytes(32)
        self._max_age = settings.login_max_age_s

    def remember(self, request: Request, response: Response, pending: PendingLogin) -> None:
        payload = {
            "state": pending.state,
            "nonce": pending.nonce,
            "verifier": pending.code_verifier,
            "redirect_uri": pending.redirect_uri,
            "expires": int(time.time()) + self._max_age,
        }
        body = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()
        response.set_cookie(
            LOGIN_COOKIE,
            f"{body}.{self._sign(body)}",
            max_age=self._max_age,
            path=LOGIN_COOKIE_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="lax",
        )

    def recall(self, request: Request) -> PendingLogin | None:
        value = request.cookies.get(LOGIN_COOKIE, "")
        body, _, signature = value.partition(".")
        if not (body and len(value) <= MAX_COOKIE_CHARS):
            return None
        if not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return None
        payload = json.loads(base64.urlsafe_b64decode(body))
        if payload["expires"] < time.time():
            return None
        return PendingLogin(
            payload["state"], payload["nonce"], payload["verifier"], payload["redirect_uri"]
        )

    @staticmethod
    def forget(request: Request, response: Response) -> None:
        response.delete_cookie(
            LOGIN_COOKIE,
            path=LOGIN_COOKIE_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="lax",
        )

    def _sign(self, body: str) -> str:
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()
