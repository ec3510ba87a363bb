"""LatestValues against a real nats-server: it must read exactly what nats-py's
KeyValue.get reads (value and revision), and absent what KeyValue.get calls not found."""

from __future__ import annotations

import uuid

import pytest
from memhive_adapters.nats.kv_latest import LatestValues
from memhive_contracts.streams import MEMORIES_BUCKET
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, NotFoundError


@pytest.fixture
def key() -> str:
    return f"ws-{uuid.uuid4().hex[:12]}.{uuid.uuid4()}"


async def test_the_latest_value_and_revision_are_those_nats_py_reads(
    js: JetStreamContext, nats_client: Client, key: str
) -> None:
    kv = await js.key_value(MEMORIES_BUCKET)
    await kv.create(key, b"first")
    await kv.put(key, b"second \x00\xff bytes")
    latest = LatestValues(nats_client, MEMORIES_BUCKET)

    read = await latest.get(key)
    entry = await kv.get(key)
    assert read is not None
    assert (read.value, read.revision) == (entry.value, entry.revision)


async def test_deleted_purged_and_never_written_keys_are_absent(
    js: JetStreamContext, nats_client: Client, key: str
) -> None:
    kv = await js.key_value(MEMORIES_BUCKET)
    latest = LatestValues(nats_client, MEMORIES_BUCKET)
    assert await latest.get(key) is None

    await kv.put(key, b"value")
    await kv.delete(key)
    with pytest.raises(KeyNotFoundError):
        await kv.get(key)
    assert await latest.get(key) is None

    await kv.put(key, b"again")
    assert (await latest.get(key)).value == b"again"
    await kv.purge(key)
    assert await latest.get(key) is None


@pytest.mark.parametrize("bad", ["", ".", "a..b", ".a", "a.", "a b", "a*", "a>", "ü"])
async def test_keys_that_cannot_exist_are_absent_without_a_request(
    js: JetStreamContext, nats_client: Client, bad: str
) -> None:
    assert await LatestValues(nats_client, MEMORIES_BUCKET).get(bad) is None


async def test_a_missing_bucket_is_an_error_not_an_absent_key(nats_client: Client) -> None:
    with pytest.raises(NotFoundError, match="stream not found"):
        await LatestValues(nats_client, "no_such_bucket").get("a.b")
