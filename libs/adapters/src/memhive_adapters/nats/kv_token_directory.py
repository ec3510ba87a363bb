"""TokenDirectory on a JetStream KV bucket."""

from __future__ import annotations

import hashlib
import json
import secrets

from memhive_contracts.streams import TOKENS_BUCKET
from memhive_domain.principals import ROOT_HOME, Principal, Role, member_or_viewer
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class KvTokenDirectory:
    """Key: sha256 hex of the token; value: JSON {workspace_id, user_id, role, home, acting_for}
    (records written before roles carry `is_member` instead of `role`).

    Only the digest is stored, so reading the bucket never reveals a usable token.
    Issuing an existing token again re-points it to the new principal.
    """

    def __init__(self, kv: KeyValue) -> None:
        self._kv = kv

    @classmethod
    async def open(cls, js: JetStreamContext) -> KvTokenDirectory:
        """Binds to the bucket that connection.ensure_streams declared."""
        return cls(await js.key_value(TOKENS_BUCKET))

    async def resolve(self, token: str) -> Principal | None:
        if not token:
            return None
        try:
            entry = await self._kv.get(token_digest(token))
        except KeyNotFoundError:
            return None
        return _principal(json.loads(entry.value or b"{}"))

    async def issue(self, principal: Principal, token: str | None = None) -> str:
        if token == "":
            raise ValueError("an empty token cannot be issued")
        token = token if token is not None else secrets.token_urlsafe(32)
        await self._kv.put(token_digest(token), _principal_json(principal))
        return token


def _principal_json(principal: Principal) -> bytes:
    fields = {
        "workspace_id": principal.workspace_id,
        "user_id": principal.user_id,
        "role": principal.role.value,
        "home": principal.home,
        "acting_for": principal.acting_for,
    }
    return json.dumps(fields).encode()


def _principal(fields: dict) -> Principal:
    role = Role(fields["role"]) if "role" in fields else member_or_viewer(fields["is_member"])
    return Principal(
        workspace_id=fields["workspace_id"],
        user_id=fields["user_id"],
        role=role,
        home=fields.get("home") or ROOT_HOME,
        acting_for=fields.get("acting_for"),
    )
