"""TokenDirectory on a JetStream KV bucket."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from memhive_contracts.streams import TOKENS_BUCKET
from memhive_domain.principals import ROOT_HOME, Principal, Role, member_or_viewer
from memhive_domain.tokens import (
    TokenDraft,
    TokenRecord,
    format_token,
    is_token_id,
    parse_token,
)
from memhive_ports import Clock
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from memhive_adapters.clock import SystemClock
from memhive_adapters.nats.kv_watch import changed_keys, current_entries

SECRET_BYTES = 32

log = logging.getLogger(__name__)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class KvTokenDirectory:
    """Key: the token id; value: JSON with the token's digest and metadata (role, home,
    acting_for, name, created_at/by, expires_at). Tokens issued before ids existed, and
    explicitly chosen ones such as a dev token, are keyed by their digest instead (records
    written before roles carry `is_member` instead of `role`).

    Only digests are stored, so reading the bucket never reveals a usable token. A rotated
    token keeps its previous digest until its grace period ends. Revoking deletes the key;
    every gateway watches the bucket and drops its cached principals (`changes`).
    """

    def __init__(self, kv: KeyValue, clock: Clock | None = None) -> None:
        self._kv = kv
        self._clock = clock or SystemClock()

    @classmethod
    async def open(cls, js: JetStreamContext, clock: Clock | None = None) -> KvTokenDirectory:
        """Binds to the bucket that connection.ensure_streams declared."""
        return cls(await js.key_value(TOKENS_BUCKET), clock)

    async def resolve(self, token: str) -> Principal | None:
        record = await self.lookup(token)
        if record is None or not record.live_at(self._clock.now()):
            return None
        return record.principal()

    async def lookup(self, token: str) -> TokenRecord | None:
        if not token:
            return None
        parsed, digest = parse_token(token), token_digest(token)
        key = parsed[0] if parsed else digest
        fields = await self._fields(key)
        record = None if fields is None else _record_or_none(key, fields)
        if record is None:
            return None
        if parsed is None or _same(fields.get("digest"), digest):
            return record
        if _same(fields.get("previous_digest"), digest):
            return record.expiring(datetime.fromisoformat(fields["previous_until"]))
        return None

    async def issue(self, principal: Principal, token: str | None = None) -> str:
        if token == "":
            raise ValueError("an empty token cannot be issued")
        if token is None:
            token = format_token(_new_id(), secrets.token_urlsafe(SECRET_BYTES))
        parsed = parse_token(token)
        record = TokenRecord(
            id=parsed[0] if parsed else token_digest(token),
            workspace_id=principal.workspace_id,
            user_id=principal.user_id,
            role=principal.role,
            home=principal.home,
            acting_for=principal.acting_for,
            created_at=self._clock.now(),
        )
        await self._kv.put(record.id, _json(record, token_digest(token) if parsed else None))
        return token

    async def create(
        self, draft: TokenDraft, created_by: str, now: datetime
    ) -> tuple[TokenRecord, str]:
        record = draft.record(_new_id(), created_by, now)
        token = format_token(record.id, secrets.token_urlsafe(SECRET_BYTES))
        await self._kv.create(record.id, _json(record, token_digest(token)))
        return record, token

    async def get(self, token_id: str) -> TokenRecord | None:
        if not is_token_id(token_id):
            return None
        fields = await self._fields(token_id)
        return None if fields is None else _record_or_none(token_id, fields)

    async def list(self, workspace_id: str | None = None) -> list[TokenRecord]:
        records = [_record_or_none(e.key, _loads(e.value)) for e in await current_entries(self._kv)]
        return sorted(
            (r for r in records if r is not None and workspace_id in (None, r.workspace_id)),
            key=lambda r: (r.workspace_id, r.created_at is None, r.id),
        )

    async def revoke(self, token_id: str) -> TokenRecord | None:
        record = await self.get(token_id)
        if record is not None:
            await self._kv.delete(token_id)
        return record

    async def rotate(
        self, token_id: str, now: datetime, grace: timedelta
    ) -> tuple[TokenRecord, str] | None:
        if not is_token_id(token_id):
            return None
        while True:
            try:
                entry = await self._kv.get(token_id)
            except KeyNotFoundError:
                return None
            fields = json.loads(entry.value or b"{}")
            old_digest = fields.get("digest") or token_id
            # A legacy token gets an id of its own: its key is its digest.
            record = replace(_record(token_id, fields), rotated_at=now)
            if "digest" not in fields:
                record = replace(record, id=_new_id())
            token = format_token(record.id, secrets.token_urlsafe(SECRET_BYTES))
            value = _json(record, token_digest(token))
            if grace > timedelta(0):
                value = _with_previous(value, old_digest, now + grace)
            try:
                if record.id == token_id:
                    await self._kv.update(token_id, value, last=entry.revision)
                else:
                    await self._kv.create(record.id, value)
                    await self._kv.delete(token_id, last=entry.revision)
            except KeyWrongLastSequenceError:
                continue  # changed under us (another rotation): read again
            return record, token

    async def changes(self) -> AsyncIterator[str]:
        """Subscribed when this returns: no change made afterwards is missed."""
        return changed_keys(await self._kv.watchall(meta_only=True))

    async def _fields(self, key: str) -> dict[str, Any] | None:
        try:
            entry = await self._kv.get(key)
        except KeyNotFoundError:
            return None
        return _loads(entry.value)


def _new_id() -> str:
    return secrets.token_hex(8)


def _same(stored: str | None, digest: str) -> bool:
    return stored is not None and hmac.compare_digest(stored, digest)


def _json(record: TokenRecord, digest: str | None) -> bytes:
    fields: dict[str, Any] = {
        "workspace_id": record.workspace_id,
        "user_id": record.user_id,
        "role": record.role.value,
        "home": record.home,
        "acting_for": record.acting_for,
        "name": record.name,
        "created_at": _iso(record.created_at),
        "created_by": record.created_by,
        "expires_at": _iso(record.expires_at),
        "rotated_at": _iso(record.rotated_at),
    }
    if digest is not None:
        fields["digest"] = digest
    return json.dumps(fields).encode()


def _with_previous(value: bytes, digest: str, until: datetime) -> bytes:
    fields = json.loads(value)
    return json.dumps(fields | {"previous_digest": digest, "previous_until": _iso(until)}).encode()


def _loads(value: bytes | None) -> dict[str, Any] | None:
    try:
        fields = json.loads(value) if value else None
    except ValueError:
        return {}  # not JSON: reported by _record_or_none
    return fields if isinstance(fields, dict) or fields is None else {}


def _record_or_none(key: str, fields: dict[str, Any] | None) -> TokenRecord | None:
    """A record that cannot be read (written by hand, or by a future version) authenticates
    nothing and is left out of listings; it is logged, never fatal to the caller."""
    if fields is None:
        return None
    try:
        return _record(key, fields)
    except (KeyError, ValueError, TypeError) as exc:
        log.warning("token record %s cannot be read (%r): ignored", key[:16], exc)
        return None


def _record(key: str, fields: dict[str, Any]) -> TokenRecord:
    role = Role(fields["role"]) if "role" in fields else member_or_viewer(fields["is_member"])
    return TokenRecord(
        id=key,
        workspace_id=fields["workspace_id"],
        user_id=fields["user_id"],
        role=role,
        name=fields.get("name") or "",
        home=fields.get("home") or ROOT_HOME,
        acting_for=fields.get("acting_for"),
        created_at=_time(fields.get("created_at")),
        created_by=fields.get("created_by"),
        expires_at=_time(fields.get("expires_at")),
        rotated_at=_time(fields.get("rotated_at")),
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _time(value: str | None) -> datetime | None:
    return None if not value else datetime.fromisoformat(value)
