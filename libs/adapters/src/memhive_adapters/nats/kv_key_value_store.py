"""KeyValueStore on the JetStream KV bucket memhive_kv.

One key per entry, `<workspace>.<node>.<key>` with the node path and the key as unpadded
urlsafe base64 (paths hold ':' and '/', keys '.' and ':', which KV keys refuse or split on),
holding a KvEntry record. The bucket keeps one message per key, so the key's last message
is the entry (or a delete marker), and its stream sequence is the entry's revision.

- Compare-and-set: every write is a publish with `Nats-Expected-Last-Subject-Sequence` set
  to the key's last message as read, so it lands only if nothing was written since; a lost
  race is re-read and the precondition decided again.
- TTL: an entry with one is published with `Nats-TTL` (nats-server 2.11+; measured on the
  2.15 we ship: gone 1.04 s after a 1 s TTL), so the server removes it without any job
  of ours. The record's own expires_at is checked on every read as well, so an entry is
  absent from the moment it expires, not from when the server gets to it.
- Delete: a purge marker (rolls the value up) that itself expires after MARKER_TTL_S, so
  deleted keys leave nothing behind.
"""

from __future__ import annotations

import base64
import contextlib
from dataclasses import dataclass

from memhive.v1.kv_pb2 import KvEntry as KvRecord
from memhive_contracts.codec import UndecodableMessage, decode, encode
from memhive_contracts.kv_mapping import kv_entry_from_pb, kv_entry_to_pb
from memhive_contracts.streams import KV_BUCKET, kv_key
from memhive_domain.kv import (
    KvAddress,
    KvEntry,
    KvPage,
    KvWrite,
    Precondition,
    RevisionMismatch,
)
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import APIError, KeyNotFoundError
from nats.js.kv import KV_DEL, KV_OP, KV_PURGE, KeyValue

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.unavailable import unavailable_as_port_error

MARKER_TTL_S = 60
MAX_ATTEMPTS = 8  # lost races in a row before giving up (each one is another writer's win)
WRONG_LAST_SEQUENCE = (10071, 10164)
# A throwaway reader's messages are there when it is made: waiting longer for them is a
# bus that does not answer (bus_liveness: slow after 1 s, then a probe), not a slow one.
FETCH_TIMEOUT_S = 2.0
MAX_SCAN = 1000  # messages one page examines; past that it ends early, with a cursor
_STREAM = f"KV_{KV_BUCKET}"
_PREFIX = f"$KV.{KV_BUCKET}."


@dataclass(frozen=True, slots=True)
class _Current:
    entry: KvEntry | None  # the live entry, if any
    last: int  # the key's last message (entry, expired entry or marker); 0: none


class KvContended(RuntimeError):
    """Lost the compare-and-set MAX_ATTEMPTS times in a row without a precondition."""


class KvKeyValueStore:
    def __init__(self, js: JetStreamContext, clock: Clock, space: FreeSpace | None = None) -> None:
        """`space`: below its low-space watermark no entry is written (InsufficientStorage)."""
        self._js, self._clock, self._space = js, clock, space
        self._kv: KeyValue | None = None

    async def get(self, address: KvAddress) -> KvEntry | None:
        return (await self._current(address)).entry

    async def put(self, write: KvWrite, updated_by: str) -> KvEntry:
        record = encode(kv_entry_to_pb(write, updated_by, self._clock.now()))
        for _ in range(MAX_ATTEMPTS):
            current = await self._current(write.address)
            _check(write.address, current, write.precondition)
            revision = await self._publish(write.address, record, current.last, write.ttl_s)
            if revision is not None:
                return kv_entry_from_pb(decode(record, KvRecord), revision)
        raise KvContended(f"key {write.address.key!r} contended {MAX_ATTEMPTS} times")

    async def delete(self, address: KvAddress, precondition: Precondition) -> bool:
        headers = {KV_OP: KV_PURGE, "Nats-Rollup": "sub"}
        for _ in range(MAX_ATTEMPTS):
            current = await self._current(address)
            if current.entry is None:
                return False
            _check(address, current, precondition)
            if await self._publish(address, b"", current.last, MARKER_TTL_S, headers):
                return True
        raise KvContended(f"key {address.key!r} contended {MAX_ATTEMPTS} times")

    async def list(
        self, workspace_id: str, node: ScopeRef, after: int | None, limit: int
    ) -> KvPage:
        async with unavailable_as_port_error("the key/value entries were not read"):
            return await self._list(workspace_id, node, after, limit)

    async def _list(
        self, workspace_id: str, node: ScopeRef, after: int | None, limit: int
    ) -> KvPage:
        subject = f"{_PREFIX}{kv_key(workspace_id, _token(node.key), '*')}"
        info = await self._js.add_consumer(_STREAM, config=_reader(subject, after))
        try:
            if not info.num_pending:
                return KvPage([], None)
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=_STREAM)
            try:
                return await self._page(sub, limit)
            finally:
                await sub.unsubscribe()
        finally:
            await self._js.delete_consumer(_STREAM, info.name)

    async def _page(self, sub: JetStreamContext.PullSubscription, limit: int) -> KvPage:
        """Delete markers and expired entries are skipped (both are short-lived: markers
        expire, the server drops expired entries), at most MAX_SCAN of them per page."""
        entries: list[KvEntry] = []
        examined = 0
        while True:
            for msg in await sub.fetch(limit + 1, timeout=FETCH_TIMEOUT_S):
                meta, examined = msg.metadata, examined + 1
                entry = self._live(msg.data, msg.headers, meta.sequence.stream)
                if entry is not None:
                    entries.append(entry)
                if meta.num_pending == 0:
                    return KvPage(entries, None)
                if len(entries) == limit or examined >= MAX_SCAN:
                    return KvPage(entries, meta.sequence.stream)

    async def _current(self, address: KvAddress) -> _Current:
        kv = await self._bucket()
        try:
            found = await kv.get(_subject_key(address))
        except KeyNotFoundError as gone:  # a delete marker has an entry; none: never written
            return _Current(None, (gone.entry.revision or 0) if gone.entry else 0)
        revision = found.revision or 0
        return _Current(self._live(found.value or b"", None, revision), revision)

    def _live(self, data: bytes, headers: dict | None, revision: int) -> KvEntry | None:
        if headers and headers.get(KV_OP) in (KV_DEL, KV_PURGE):
            return None
        with contextlib.suppress(UndecodableMessage, ValueError):
            entry = kv_entry_from_pb(decode(data, KvRecord), revision)
            return entry if entry.is_live(self._clock.now()) else None
        return None  # not a record this version can read: as if absent

    async def _publish(
        self,
        address: KvAddress,
        data: bytes,
        last: int,
        ttl_s: int | None,
        headers: dict[str, str] | None = None,
    ) -> int | None:
        """The new revision; None when another write landed since `last` was read."""
        if self._space is not None:
            self._space.require("the key/value write was not stored")
        expected = {"Nats-Expected-Last-Subject-Sequence": str(last)}
        subject = _PREFIX + _subject_key(address)
        try:
            async with unavailable_as_port_error("the key/value write was not stored"):
                ack = await self._js.publish(
                    subject, data, headers=expected | (headers or {}), msg_ttl=ttl_s
                )
        except APIError as refused:
            if refused.err_code in WRONG_LAST_SEQUENCE:
                return None
            raise
        return ack.seq

    async def _bucket(self) -> KeyValue:
        """Bound on first use to the bucket that connection.ensure_streams declared."""
        if self._kv is None:
            self._kv = await self._js.key_value(KV_BUCKET)
        return self._kv


def _check(address: KvAddress, current: _Current, precondition: Precondition) -> None:
    live = current.entry.revision if current.entry is not None else None
    if not precondition.holds_for(live):
        raise RevisionMismatch(address, live, precondition)


def _reader(subject: str, after: int | None) -> ConsumerConfig:
    # Unnamed: the server names a throwaway reader (bus users may not name consumers).
    start = {"deliver_policy": DeliverPolicy.ALL}
    if after is not None:
        start = {"deliver_policy": DeliverPolicy.BY_START_SEQUENCE, "opt_start_seq": after + 1}
    return ConsumerConfig(
        filter_subject=subject,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=60.0,
        mem_storage=True,
        num_replicas=1,
        **start,
    )


def _subject_key(address: KvAddress) -> str:
    return kv_key(address.workspace_id, _token(address.node.key), _token(address.key))


def _token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
