"""MemoryStore on a JetStream KV bucket."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence

from memhive.v1.memory_pb2 import MemoryRecord
from memhive_contracts.codec import encode
from memhive_contracts.edge_mapping import edge_to_pb
from memhive_contracts.mapping import memory_to_pb
from memhive_contracts.streams import MEMORIES_BUCKET, memory_key
from memhive_domain.edges import Edge
from memhive_domain.errors import ConcurrentUpdate, FieldProblem, InvalidInput
from memhive_domain.memory import Memory
from memhive_ports import StoredMemory
from nats.aio.client import Client
from nats.js.errors import KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.decoded_records import DecodedRecords
from memhive_adapters.nats.kv_latest import LatestValues
from memhive_adapters.nats.kv_latest_many import LatestMany, open_latest_many
from memhive_adapters.nats.ride_out import ride_out

# Both parts become one KV key, so neither may hold a dot or anything KV keys refuse.
_KEY = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")


class KvMemoryStore:
    """One KV key per memory (`<workspace>.<memory id>`), holding a MemoryRecord protobuf.

    The KV revision of the key is StoredMemory.revision: create succeeds only on an absent
    key and replace only while the key is still at the revision that was read, otherwise
    ConcurrentUpdate. A key that cannot exist (not a valid KV key) reads as absent.
    get_many reads every key in one direct get where that is as fresh as the leader's read
    (`kv_latest_many`: a bucket with one replica), else each key from the leader.
    The record also carries every edge touching the memory (StoredMemory.edges): a replace
    keeps them unless it is given new ones, so only a link ever changes them.
    Every read asks the bucket; a record read again at the same revision is not decoded
    again (`decoded_records`; none kept unless given one).
    With `space`, no record is created while the data dir is below its low-space watermark
    (InsufficientStorage): the gateway's saves, writes asked for (`refusing_when_low`).
    """

    def __init__(
        self,
        kv: KeyValue,
        latest: LatestValues,
        many: LatestMany | None = None,
        decoded: DecodedRecords | None = None,
        space: FreeSpace | None = None,
    ) -> None:
        self._kv, self._latest, self._many = kv, latest, many
        self._decoded = DecodedRecords(0) if decoded is None else decoded
        self._space = space

    def refusing_when_low(self, space: FreeSpace | None) -> KvMemoryStore:
        """The same bucket, whose creates are refused below `space`'s watermark."""
        return KvMemoryStore(self._kv, self._latest, self._many, self._decoded, space)

    @classmethod
    async def open(cls, nc: Client, decoded: DecodedRecords | None = None) -> KvMemoryStore:
        """Binds to the bucket that connection.ensure_streams declared."""
        kv = await nc.jetstream().key_value(MEMORIES_BUCKET)
        many = await open_latest_many(nc, MEMORIES_BUCKET)
        return cls(kv, LatestValues(nc, MEMORIES_BUCKET), many, decoded)

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None:
        key = memory_key(workspace_id, memory_id)
        latest = await self._latest.get(key)
        return None if latest is None else self._decoded.stored(key, latest)

    async def get_many(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, StoredMemory]:
        unique = list(dict.fromkeys(memory_ids))
        if self._many is not None and len(unique) > 1:
            keys = {memory_key(workspace_id, m): m for m in unique}
            found = await self._many.get(list(keys))
            return {keys[k]: self._decoded.stored(k, v) for k, v in found.items()}
        read = await asyncio.gather(*(self.get(workspace_id, m) for m in unique))
        return {m: stored for m, stored in zip(unique, read, strict=True) if stored is not None}

    async def create(self, memory: Memory, command_id: str) -> StoredMemory:
        key = _key_of(memory)
        if self._space is not None:
            self._space.require("the save was not accepted")
        record = _record(memory, command_id)
        try:
            return await self._written(
                key,
                command_id,
                lambda: self._kv.create(key, record),
                lambda revision: StoredMemory(memory, revision, command_id),
            )
        except KeyWrongLastSequenceError as exc:
            raise ConcurrentUpdate(f"memory {memory.id} already exists") from exc

    async def replace(
        self,
        current: StoredMemory,
        memory: Memory,
        command_id: str,
        edges: tuple[Edge, ...] | None = None,
    ) -> StoredMemory:
        key = _key_of(memory)
        kept = current.edges if edges is None else edges
        record = _record(memory, command_id, kept)
        try:
            return await self._written(
                key,
                command_id,
                lambda: self._kv.update(key, record, current.revision),
                lambda revision: StoredMemory(memory, revision, command_id, kept),
            )
        except KeyWrongLastSequenceError as exc:
            raise ConcurrentUpdate(
                f"memory {memory.id} changed since revision {current.revision}"
            ) from exc

    async def _written(
        self,
        key: str,
        command_id: str,
        write: Callable[[], Awaitable[int]],
        stored_at: Callable[[int], StoredMemory],
    ) -> StoredMemory:
        """The record `write` stored, the write asked again while a leader is being elected
        (`ride_out`). Writes are revision-checked, so an attempt that landed though its
        answer was lost (a timeout) makes the next one conflict: the record then carries
        this command's id, and is what the write stored."""
        attempts = 0

        async def attempt() -> int:
            nonlocal attempts
            attempts += 1
            return await write()

        try:
            return stored_at(await ride_out(attempt))
        except KeyWrongLastSequenceError:
            if attempts > 1 and (latest := await self._latest.get(key)) is not None:
                landed = self._decoded.stored(key, latest)
                if landed.last_command_id == command_id:
                    return landed
            raise

    async def purge(self, current: StoredMemory) -> None:
        key = _key_of(current.memory)
        try:  # the delete is revision-checked; the purge then drops the key's history
            await self._kv.delete(key, last=current.revision)
        except KeyWrongLastSequenceError as exc:
            raise ConcurrentUpdate(
                f"memory {current.memory.id} changed since revision {current.revision}"
            ) from exc
        await self._kv.purge(key)


def _key_of(memory: Memory) -> str:
    key = memory_key(memory.workspace_id, memory.id)
    if not _KEY.match(key):
        raise InvalidInput([FieldProblem("id", f"{key!r} cannot be a record key")])
    return key


def _record(memory: Memory, command_id: str, edges: tuple[Edge, ...] = ()) -> bytes:
    record = MemoryRecord(
        memory=memory_to_pb(memory),
        last_command_id=command_id,
        edges=[edge_to_pb(e) for e in edges],
    )
    return encode(record)
