"""A NATS operator, account and user made here (what `nsc` makes), for testing `.creds`
files against a real nats-server in operator mode: NATS JWTs are ed25519-signed by the
issuer's NKey (header `ed25519-nkey`), the operator signs accounts, an account its users."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import nkeys

HEADER = {"typ": "JWT", "alg": "ed25519-nkey"}
UNLIMITED = -1


@dataclass(frozen=True)
class Identity:
    seed: bytes
    public_key: str

    @classmethod
    def new(cls, prefix: int) -> Identity:
        seed = nkeys.encode_seed(secrets.token_bytes(32), prefix)
        return cls(seed, nkeys.from_seed(seed).public_key.decode())

    def sign(self, subject: str, name: str, nats: dict) -> str:
        claims = {"iat": int(time.time()), "iss": self.public_key, "name": name, "sub": subject}
        claims |= {"nats": nats | {"version": 2}}
        claims["jti"] = _b32(hashlib.new("sha512_256", _json(claims)).digest())
        signing_input = f"{_b64(_json(HEADER))}.{_b64(_json(claims))}".encode()
        signature = nkeys.from_seed(self.seed).sign(signing_input)
        return f"{signing_input.decode()}.{_b64(signature)}"


def _json(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b32(data: bytes) -> str:
    return base64.b32encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class Operator:
    """One operator with one account (JetStream on) whose users are signed on demand."""

    operator: Identity
    account: Identity
    system: Identity

    @classmethod
    def new(cls) -> Operator:
        return cls(
            Identity.new(nkeys.PREFIX_BYTE_OPERATOR),
            Identity.new(nkeys.PREFIX_BYTE_ACCOUNT),
            Identity.new(nkeys.PREFIX_BYTE_ACCOUNT),
        )

    def server_config(self) -> str:
        operator_jwt = self.operator.sign(
            self.operator.public_key, "memhive-test", {"type": "operator"}
        )
        return (
            f'operator: "{operator_jwt}"\n'
            f'system_account: "{self.system.public_key}"\n'
            "resolver: MEMORY\n"
            "resolver_preload: {\n"
            f'  {self.account.public_key}: "{self._account_jwt(self.account, "memhive", True)}"\n'
            f'  {self.system.public_key}: "{self._account_jwt(self.system, "SYS", False)}"\n'
            "}\n"
        )

    def _account_jwt(self, account: Identity, name: str, jetstream: bool) -> str:
        limits = {
            "subs": UNLIMITED, "data": UNLIMITED, "payload": UNLIMITED, "imports": UNLIMITED,
            "exports": UNLIMITED, "wildcards": True, "conn": UNLIMITED, "leaf": UNLIMITED,
        }  # fmt: skip
        if jetstream:
            limits |= {"mem_storage": UNLIMITED, "disk_storage": UNLIMITED,
                       "streams": UNLIMITED, "consumer": UNLIMITED}  # fmt: skip
        nats = {"type": "account", "limits": limits, "default_permissions": {"pub": {}, "sub": {}}}
        return self.operator.sign(account.public_key, name, nats)

    def creds_file(self, path: Path, name: str, *, account: Identity | None = None) -> Path:
        """A user of the account (or of `account`, e.g. one the server does not know)."""
        user = Identity.new(nkeys.PREFIX_BYTE_USER)
        nats = {"type": "user", "pub": {}, "sub": {}, "subs": UNLIMITED, "data": UNLIMITED,
                "payload": UNLIMITED}  # fmt: skip
        jwt = (account or self.account).sign(user.public_key, name, nats)
        path.write_text(
            "-----BEGIN NATS USER JWT-----\n"
            f"{jwt}\n"
            "------END NATS USER JWT------\n\n"
            "-----BEGIN USER NKEY SEED-----\n"
            f"{user.seed.decode()}\n"
            "------END USER NKEY SEED------\n"
        )
        path.chmod(0o600)
        return path
