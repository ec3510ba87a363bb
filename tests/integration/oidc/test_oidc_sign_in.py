"""OIDC sign-in against a local identity provider: a generated key pair, a JWKS served on
loopback by a tiny HTTP server, and JWTs signed here. No external provider."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from memhive_adapters.oidc.jwks_verifier import JwksVerifier
from memhive_application.audit_trail import AuditTrail
from memhive_application.authentication import Authenticator, Unauthenticated
from memhive_application.token_requests import AuthenticatedTokenAdmin
from memhive_application.tokens import TokenAdmin
from memhive_domain.errors import NotAllowed
from memhive_domain.principals import Principal, Role
from memhive_ports import SignInRejected, TokenRequest
from memhive_settings import OidcSettings

from tests.fakes import FakeAuditLog, FakeTokenDirectory, FixedClock

ISSUER, AUDIENCE = "https://id.example.test/", "memhive"


@functools.cache
def rsa_key(n: int) -> rsa.RSAPrivateKey:
    """Key pairs made once per session: generating RSA keys is slow."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Provider:
    """Keys by kid; the JWKS served is whatever `published` holds at the time."""

    def __init__(self) -> None:
        self.rsa = rsa_key(1)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.published = [self.jwk(self.rsa, "rsa-1"), self.jwk(self.ec, "ec-1")]
        self.fetches = 0

    @staticmethod
    def jwk(key, kid: str) -> dict:
        algorithm = RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else ECAlgorithm
        return json.loads(algorithm.to_jwk(key.public_key())) | {"kid": kid, "use": "sig"}

    def sign(self, *, key=None, kid="rsa-1", alg="RS256", **claims) -> str:
        now = datetime.now(UTC)
        payload = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": "user-42",
            "email": "ada@example.test",
            "memhive_workspace": "acme",
            "memhive_role": "admin",
            "iat": now,
            "exp": now + timedelta(minutes=5),
        } | claims
        return jwt.encode(payload, key or self.rsa, algorithm=alg, headers={"kid": kid})


@pytest.fixture
def provider() -> Iterator[tuple[Provider, str]]:
    idp = Provider()

    class Jwks(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            idp.fetches += 1
            body = json.dumps({"keys": idp.published}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield idp, f"http://127.0.0.1:{server.server_port}/jwks"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def verifier(jwks_url: str, **settings) -> JwksVerifier:
    return JwksVerifier(
        OidcSettings(
            issuer=ISSUER,
            audience=AUDIENCE,
            jwks_url=jwks_url,
            user_claim="email",
            **({"leeway_s": 0, "jwks_min_refresh_s": 0} | settings),
        )
    )


async def test_a_valid_token_becomes_the_claimed_principal(provider) -> None:
    idp, url = provider

    principal = await verifier(url).verify(idp.sign())

    assert principal == Principal("acme", "ada@example.test", Role.ADMIN)
    assert principal.credential == "oidc:user-42"


@pytest.mark.parametrize(
    "home", ["global", "product:ios", "product:ios/team:mobile", "team:ops/agent:carl"]
)
async def test_the_home_claim_is_a_scope_tree_node(provider, home: str) -> None:
    idp, url = provider

    principal = await verifier(url).verify(idp.sign(memhive_home=home))

    assert principal.home == home


async def test_an_es256_token_is_accepted_too(provider) -> None:
    idp, url = provider

    principal = await verifier(url).verify(
        idp.sign(key=idp.ec, kid="ec-1", alg="ES256", memhive_role="viewer")
    )

    assert principal.role is Role.VIEWER


async def test_keys_are_cached(provider) -> None:
    idp, url = provider
    v = verifier(url)

    for _ in range(3):
        await v.verify(idp.sign())

    assert idp.fetches == 1


async def test_a_rotated_key_is_found_by_refetching_on_its_unknown_kid(provider) -> None:
    idp, url = provider
    v = verifier(url)
    await v.verify(idp.sign())
    new_key = rsa_key(2)
    idp.published.append(idp.jwk(new_key, "rsa-2"))

    principal = await v.verify(idp.sign(key=new_key, kid="rsa-2"))

    assert principal.user_id == "ada@example.test" and idp.fetches == 2


def hs256_with_the_public_key(idp: Provider) -> str:
    """The algorithm-confusion attack: HMAC keyed with the (public) RSA key's PEM. PyJWT
    refuses to sign with a PEM as an HMAC key, so the signature is made by hand."""
    import base64
    import hashlib
    import hmac

    pem = idp.rsa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    def b64(data: bytes) -> bytes:
        return base64.urlsafe_b64encode(data).rstrip(b"=")

    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
    claims = json.loads(jwt.api_jws.base64url_decode(idp.sign().split(".")[1]))
    body = b64(json.dumps(claims).encode())
    signature = b64(hmac.new(pem, header + b"." + body, hashlib.sha256).digest())
    return (header + b"." + body + b"." + signature).decode()


def alg_none(idp: Provider) -> str:
    header, body, _ = idp.sign().split(".")
    none = jwt.utils.base64url_encode(json.dumps({"alg": "none", "kid": "rsa-1"}).encode())
    return f"{none.decode()}.{body}."


REFUSALS = {
    "expired": (
        lambda idp: idp.sign(exp=datetime.now(UTC) - timedelta(seconds=5)),
        "expired",
    ),
    "wrong audience": (lambda idp: idp.sign(aud="someone-else"), "audience"),
    "wrong issuer": (lambda idp: idp.sign(iss="https://evil.test/"), "issuer"),
    "unknown kid": (lambda idp: idp.sign(kid="nobody"), "no key 'nobody'"),
    "alg none": (alg_none, "algorithm 'none'"),
    "hs256 with the public key": (hs256_with_the_public_key, "algorithm 'HS256'"),
    "signed by another key": (
        lambda idp: idp.sign(key=rsa_key(3)),
        "Signature",
    ),
    "es256 header on an rsa key": (
        lambda idp: idp.sign(key=idp.ec, kid="rsa-1", alg="ES256"),
        "not a ES256 key",
    ),
    "no workspace": (lambda idp: idp.sign(memhive_workspace=None), "workspace"),
    "unknown role": (lambda idp: idp.sign(memhive_role="root"), "memhive_role"),
    "home not a scope path": (lambda idp: idp.sign(memhive_home="nonsense"), "memhive_home"),
    "home out of order": (
        lambda idp: idp.sign(memhive_home="team:mobile/product:ios"),
        "memhive_home",
    ),
    "home not a string": (lambda idp: idp.sign(memhive_home=["global"]), "memhive_home"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
async def test_forged_or_unusable_tokens_are_refused(provider, case: str) -> None:
    idp, url = provider
    make, reason = REFUSALS[case]

    with pytest.raises(SignInRejected, match=reason):
        await verifier(url).verify(make(idp))


async def test_an_unreachable_provider_is_a_refusal_within_the_timeout() -> None:
    from tests.integration.conftest import free_port

    v = verifier(f"http://127.0.0.1:{free_port()}/jwks", jwks_timeout_s=1)

    with pytest.raises(SignInRejected, match="unavailable"):
        await v.verify(Provider().sign())


async def test_the_gateway_authenticator_answers_401_for_a_bad_jwt_and_accepts_a_good_one(
    provider,
) -> None:
    idp, url = provider
    auth = Authenticator(
        FakeTokenDirectory(), FixedClock(datetime.now(UTC)), identity=verifier(url)
    )

    assert (await auth.principal_for(f"Bearer {idp.sign()}")).role is Role.ADMIN
    with pytest.raises(Unauthenticated, match="sign-in token rejected: .*audience"):
        await auth.principal_for(f"Bearer {idp.sign(aud='x')}")
    with pytest.raises(Unauthenticated, match="unknown token"):
        await auth.principal_for("Bearer mh_0123456789abcdef_secret")


async def test_the_token_responder_authenticates_a_forwarded_jwt_itself(provider) -> None:
    """The gateway forwards a person's JWT as received; the responder verifies it against
    the JWKS and applies the JWT's own workspace and role."""
    idp, url = provider
    directory, audit, clock = FakeTokenDirectory(), FakeAuditLog(), FixedClock(datetime.now(UTC))
    auth = Authenticator(directory, clock, ttl_s=0, identity=verifier(url))
    admin = TokenAdmin(directory, AuditTrail(audit, clock), clock)
    tokens = AuthenticatedTokenAdmin(auth, admin, clock)

    record, _ = await tokens.create(idp.sign(), TokenRequest(user_id="bot", role="agent"))
    assert (record.workspace_id, record.created_by) == ("acme", "ada@example.test")
    with pytest.raises(NotAllowed):
        await tokens.create(idp.sign(memhive_role="member"), TokenRequest(user_id="x"))
    with pytest.raises(Unauthenticated, match="sign-in token rejected"):
        await tokens.create(idp.sign(aud="elsewhere"), TokenRequest(user_id="y"))
    assert [d.user_id for d, _ in directory.created] == ["bot"]
    assert [(e.credential, e.outcome.value) for e in audit.entries] == [
        ("oidc:user-42", "ok"),
        ("oidc:user-42", "denied"),
    ]
