"""LatestMany against a real nats-server: one direct get must read exactly what a leader
read of each key reads (LatestValues), keys absent the same way, in batches past the
server's limit; and it is offered only for a bucket with one replica and direct gets."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from memhive_adapters.nats.connection import allow_direct_reads
from memhive_adapters.nats.kv_latest import LatestValues
from memhive_adapters.nats.kv_latest_many import MAX_KEYS, LatestMany, open_latest_many
from memhive_adapters.nats.unavailable import is_transient
from memhive_contracts.streams import MEMORIES_BUCKET
from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig


def keys(count: int) -> list[str]:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    return [f"{workspace}.{uuid.uuid4()}" for _ in range(count)]


async def test_one_request_reads_what_leader_reads_of_each_key_read(
    js: JetStreamContext, nats_client: Client
) -> None:
    kv = await js.key_value(MEMORIES_BUCKET)
    written, deleted, purged, never = keys(4)
    await kv.create(written, b"first")
    await kv.put(written, b"second \x00\xff bytes")
    for key in (deleted, purged):
        await kv.put(key, b"soon gone")
    await kv.delete(deleted)
    await kv.purge(purged)
    many = await open_latest_many(nats_client, MEMORIES_BUCKET)
    assert many is not None

    found = await many.get([never, written, deleted, "not a key", purged, written])

    leader = await LatestValues(nats_client, MEMORIES_BUCKET).get(written)
    assert found == {written: leader}
    assert leader is not None and leader.value == b"second \x00\xff bytes"
    await many.close()


async def test_no_key_present_is_an_empty_answer(nats_client: Client, js: JetStreamContext) -> None:
    many = LatestMany(nats_client, MEMORIES_BUCKET)
    assert await many.get(keys(3)) == {}
    assert await many.get([]) == {}
    await many.close()


async def test_more_keys_than_one_request_may_name_are_read_in_several(
    js: JetStreamContext, nats_client: Client
) -> None:
    kv = await js.key_value(MEMORIES_BUCKET)
    present = keys(MAX_KEYS + 5)
    for n, key in enumerate(present):
        await kv.put(key, str(n).encode())
    many = LatestMany(nats_client, MEMORIES_BUCKET)

    found = await many.get(present)

    assert {k: v.value for k, v in found.items()} == {
        k: str(n).encode() for n, k in enumerate(present)
    }
    await many.close()


async def test_only_a_bucket_with_one_replica_and_direct_gets_is_read_this_way(
    js: JetStreamContext, nats_client: Client
) -> None:
    bucket = f"direct_{uuid.uuid4().hex[:8]}"
    await js.create_key_value(KeyValueConfig(bucket=bucket, history=1))
    assert await open_latest_many(nats_client, bucket) is None  # created without direct gets

    await allow_direct_reads(js, bucket)  # one replica: a direct get is the leader's read

    assert (await js.stream_info(f"KV_{bucket}")).config.allow_direct
    assert await open_latest_many(nats_client, bucket) is not None
    await js.delete_key_value(bucket)


async def test_no_server_to_answer_is_a_transient_failure(nats_client: Client) -> None:
    many = LatestMany(nats_client, "no_such_bucket")  # as while a leader is being elected
    with pytest.raises(NoRespondersError) as raised:
        await many.get(["a.b", "a.c"])
    assert is_transient(raised.value)  # a 503 with Retry-After, as a leader read's would be
    await many.close()


async def test_calls_at_once_each_get_their_own_keys(
    js: JetStreamContext, nats_client: Client
) -> None:
    kv = await js.key_value(MEMORIES_BUCKET)
    groups = [keys(3) for _ in range(5)]
    for n, key in enumerate(k for group in groups for k in group):
        await kv.put(key, str(n).encode())
    many = LatestMany(nats_client, MEMORIES_BUCKET)

    answers = await asyncio.gather(*(many.get(group) for group in groups))

    assert [sorted(a) for a in answers] == [sorted(group) for group in groups]
    await many.close()
