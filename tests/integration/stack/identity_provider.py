"""A small OIDC provider on loopback for the dashboard's sign-in tests: discovery, a JWKS of a
key pair made here, an authorize endpoint that redirects back with a code (or with
`error=access_denied`), and a token endpoint that checks the code (once), the redirect URI
and the PKCE verifier before it answers with an id_token. No external provider."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "memhive-dashboard"
KID = "stub-1"


@dataclass
class Person:
    """Who signs in at the provider: the claims memhive reads."""

    sub: str
    workspace: str
    role: str


@dataclass
class StubProvider:
    issuer: str
    key: rsa.RSAPrivateKey
    person: Person | None = None
    consent: bool = True
    # A consent page with an "Allow" link instead of an immediate redirect: the way back is
    # then a navigation started by the provider's site, as with a real person at a real one.
    interactive: bool = False
    # Claims to override in the next id_tokens (e.g. a wrong aud, nonce or exp).
    tweak: dict = field(default_factory=dict)
    token_status: int | None = None  # e.g. 503: the token endpoint is down
    client_secret: str | None = None  # set: a confidential client, HTTP Basic required
    discovered_issuer: str | None = None  # set: discovery names this issuer instead
    codes: dict[str, dict] = field(default_factory=dict)
    authorize_requests: list[dict] = field(default_factory=list)

    def discovery(self) -> dict:
        return {
            "issuer": self.discovered_issuer or self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }

    def jwks(self) -> dict:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [jwk | {"kid": KID, "use": "sig", "alg": "RS256"}]}

    def authorize(self, query: dict[str, str]) -> str:
        """Where the provider sends the browser back to (a person already signed in there)."""
        self.authorize_requests.append(query)
        assert query["response_type"] == "code" and query["client_id"] == CLIENT_ID
        assert query["code_challenge_method"] == "S256"
        back = {"state": query["state"]}
        if not self.consent or self.person is None:
            back["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(16)
            self.codes[code] = query | {"person": self.person}
            back["code"] = code
        return f"{query['redirect_uri']}?{urlencode(back)}"

    def token(self, form: dict[str, str], authorization: str) -> tuple[int, dict]:
        if self.token_status is not None:
            return self.token_status, {"error": "temporarily_unavailable"}
        if self.client_secret is not None:
            basic = base64.b64encode(f"{CLIENT_ID}:{self.client_secret}".encode()).decode()
            if authorization != f"Basic {basic}":
                return 401, {"error": "invalid_client"}
        elif form.get("client_id") != CLIENT_ID:
            return 401, {"error": "invalid_client"}
        grant = self.codes.pop(form.get("code", ""), None)  # a code works once
        if grant is None:
            return 400, {"error": "invalid_grant", "error_description": "unknown or used code"}
        challenge = base64.urlsafe_b64encode(
            hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        )
        if challenge.rstrip(b"=").decode() != grant["code_challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "PKCE"}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri"}
        return 200, {
            "access_token": secrets.token_urlsafe(16),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": self.id_token(grant["person"], grant["nonce"]),
        }

    def id_token(self, person: Person, nonce: str) -> str:
        now = datetime.now(UTC)
        claims = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "sub": person.sub,
            "nonce": nonce,
            "memhive_workspace": person.workspace,
            "memhive_role": person.role,
            "iat": now,
            "exp": now + timedelta(minutes=5),
        } | self.tweak
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KID})


@contextmanager
def stub_provider(host: str = "127.0.0.1") -> Iterator[StubProvider]:
    """Served on loopback; `host` names it in its issuer (`localhost` makes it another site
    than a gateway at 127.0.0.1, as a real provider is)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    provider: StubProvider | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(200, provider.discovery())
            elif url.path == "/jwks":
                self._json(200, provider.jwks())
            elif url.path == "/authorize" and provider.interactive:
                back = html.escape(provider.authorize(query))
                self._send(200, "text/html", f'<a href="{back}">Allow</a>'.encode())
            elif url.path == "/authorize":
                self.send_response(302)
                self.send_header("Location", provider.authorize(query))
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", "0"))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            authorization = self.headers.get("Authorization", "")
            if self.path != "/token":
                self._json(404, {})
            else:
                self._json(*provider.token(form, authorization))

        def _json(self, status: int, document: dict) -> None:
            self._send(status, "application/json", json.dumps(document).encode())

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    provider = StubProvider(f"http://{host}:{server.server_address[1]}", key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
