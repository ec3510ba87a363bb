from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.decoded_records import DecodedRecords
from memhive_adapters.nats.kv_latest import LatestValues
from memhive_adapters.nats.kv_memory_store import KvMemoryStore
from memhive_adapters.nats.unavailable import BusTimeout
from memhive_contracts.streams import MEMORIES_BUCKET
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.errors import ConcurrentUpdate, InvalidInput
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_ports import InsufficientStorage
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.kv import KeyValue

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


# Every test runs with no decoded record kept and with records kept: reads must not differ.
@pytest.fixture(params=[0, 1000], ids=["decoding-every-read", "keeping-decoded"])
async def store(
    js: JetStreamContext, nats_client: Client, request: pytest.FixtureRequest
) -> KvMemoryStore:
    return await KvMemoryStore.open(nats_client, DecodedRecords(request.param))  # js: declared


@pytest.fixture
async def keeping(js: JetStreamContext, nats_client: Client) -> KvMemoryStore:
    return await KvMemoryStore.open(nats_client, DecodedRecords(1000))


@pytest.fixture
def workspace() -> str:
    return f"ws-{uuid.uuid4().hex[:12]}"


def a_memory(workspace: str, body: str = "the build uses uv") -> Memory:
    principal = Principal(workspace_id=workspace, user_id="ada")
    draft = MemoryDraft(kind="fact", body=body, tags=["build"])
    return create_memory(draft, memory_id=str(uuid.uuid4()), principal=principal, now=NOW)


async def test_a_created_memory_reads_back_whole(store: KvMemoryStore, workspace: str) -> None:
    memory = a_memory(workspace)

    created = await store.create(memory, "cmd-1")
    read = await store.get(workspace, memory.id)

    assert read == created
    assert (read.memory, read.last_command_id) == (memory, "cmd-1")
    assert read.revision > 0


async def test_absent_and_impossible_keys_read_as_none(
    store: KvMemoryStore, workspace: str
) -> None:
    assert await store.get(workspace, str(uuid.uuid4())) is None
    assert await store.get(workspace, "not a key.at all") is None


async def test_a_memory_is_invisible_from_another_workspace(
    store: KvMemoryStore, workspace: str
) -> None:
    memory = a_memory(workspace)
    await store.create(memory, "cmd-1")

    assert await store.get(f"{workspace}-other", memory.id) is None


async def test_creating_an_existing_key_is_a_concurrent_update(
    store: KvMemoryStore, workspace: str
) -> None:
    memory = a_memory(workspace)
    await store.create(memory, "cmd-1")

    with pytest.raises(ConcurrentUpdate):
        await store.create(replace(memory, body="someone else"), "cmd-2")
    assert (await store.get(workspace, memory.id)).memory.body == memory.body


async def test_an_id_that_cannot_be_a_key_is_invalid_input(
    store: KvMemoryStore, workspace: str
) -> None:
    with pytest.raises(InvalidInput):
        await store.create(replace(a_memory(workspace), id="has.a.dot"), "cmd-1")


async def test_get_many_returns_the_present_ones_by_id(
    store: KvMemoryStore, workspace: str
) -> None:
    memories = [a_memory(workspace, f"fact {i}") for i in range(3)]
    for memory in memories:
        await store.create(memory, f"cmd-{memory.id}")
    missing = str(uuid.uuid4())

    found = await store.get_many(workspace, [memories[2].id, missing, memories[0].id])

    assert set(found) == {memories[2].id, memories[0].id}
    assert found[memories[0].id].memory == memories[0]


async def test_replace_writes_a_new_revision(store: KvMemoryStore, workspace: str) -> None:
    current = await store.create(a_memory(workspace), "cmd-1")
    changed = replace(current.memory, body="the build uses uv workspaces", revision=2)

    written = await store.replace(current, changed, "cmd-2")

    assert written.revision > current.revision
    assert await store.get(workspace, changed.id) == written


async def test_a_stale_replace_is_refused(store: KvMemoryStore, workspace: str) -> None:
    current = await store.create(a_memory(workspace), "cmd-1")
    await store.replace(current, replace(current.memory, body="first"), "cmd-2")

    with pytest.raises(ConcurrentUpdate):
        await store.replace(current, replace(current.memory, body="second"), "cmd-3")
    assert (await store.get(workspace, current.memory.id)).memory.body == "first"


async def test_of_two_concurrent_replaces_from_one_revision_exactly_one_wins(
    store: KvMemoryStore, workspace: str
) -> None:
    current = await store.create(a_memory(workspace), "cmd-1")
    bodies = ["writer a", "writer b"]

    outcomes = await asyncio.gather(
        *(store.replace(current, replace(current.memory, body=b), f"cmd-{b}") for b in bodies),
        return_exceptions=True,
    )

    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, ConcurrentUpdate)]
    assert (len(winners), len(losers)) == (1, 1)
    assert await store.get(workspace, current.memory.id) == winners[0]


def an_edge(src: Memory, dst: Memory, kind: EdgeKind = EdgeKind.UPDATES) -> Edge:
    return Edge(src.id, dst.id, kind, 0.9, "ada", CreatorKind.AGENT, "newer version", NOW)


async def test_edges_written_with_a_replace_read_back_on_their_end(
    store: KvMemoryStore, workspace: str
) -> None:
    old = await store.create(a_memory(workspace, "ios targets swift 5"), "cmd-1")
    new = a_memory(workspace, "ios targets swift 6")
    edge = an_edge(new, old.memory)

    written = await store.replace(old, old.memory, "cmd-1", edges=(edge,))

    read = await store.get(workspace, old.memory.id)
    assert read == written
    assert read.edges == (edge,)


async def test_a_replace_without_edges_keeps_the_record_s_edges(
    store: KvMemoryStore, workspace: str
) -> None:
    old = await store.create(a_memory(workspace, "ios targets swift 5"), "cmd-1")
    edge = an_edge(a_memory(workspace, "ios targets swift 6"), old.memory, EdgeKind.CONTRADICTS)
    linked = await store.replace(old, old.memory, "cmd-1", edges=(edge,))

    await store.replace(linked, replace(linked.memory, access_count=3), "cmd-1")

    read = await store.get(workspace, old.memory.id)
    assert (read.memory.access_count, read.edges) == (3, (edge,))


async def test_a_record_read_again_is_not_decoded_again(
    keeping: KvMemoryStore, workspace: str
) -> None:
    one, two = a_memory(workspace, "one"), a_memory(workspace, "two")
    for memory in (one, two):
        await keeping.create(memory, "cmd-1")

    first = await keeping.get(workspace, one.id)
    many = await keeping.get_many(workspace, [one.id, two.id])
    again = await keeping.get_many(workspace, [one.id, two.id])

    assert many[one.id] is first and again[two.id] is many[two.id]


async def test_a_kept_record_still_reads_its_newest_revision_and_its_purge(
    keeping: KvMemoryStore, workspace: str
) -> None:
    one, two = a_memory(workspace, "one"), a_memory(workspace, "two")
    current = await keeping.create(one, "cmd-1")
    await keeping.create(two, "cmd-1")
    await keeping.get_many(workspace, [one.id, two.id])

    written = await keeping.replace(current, replace(one, body="one, revised"), "cmd-2")
    assert await keeping.get(workspace, one.id) == written
    await keeping.purge(written)

    assert await keeping.get(workspace, one.id) is None
    assert list(await keeping.get_many(workspace, [one.id, two.id])) == [two.id]


async def test_below_the_watermark_a_gateway_store_creates_nothing_and_still_reads(
    store: KvMemoryStore, workspace: str, tmp_path
) -> None:
    """The gateway's saves write the record themselves: a write asked for, refused (507)
    while the disk is low, like a command's publish; ingest's store is not bounded."""
    free = {"bytes": 1 << 20}
    space = FreeSpace(tmp_path, 64 << 20, measure=lambda _: free["bytes"])
    gateways = store.refusing_when_low(space)
    kept = await store.create(a_memory(workspace, "written before the disk filled"), "cmd-0")
    refused = a_memory(workspace, "the disk is full")
    with pytest.raises(InsufficientStorage, match="nearly full"):
        await gateways.create(refused, "cmd-1")
    assert await store.get(workspace, refused.id) is None
    assert await gateways.get(workspace, kept.memory.id) == kept  # reads are not refused
    free["bytes"] = 1 << 40
    assert (await gateways.create(refused, "cmd-1")).memory == refused


class AnswerLost:
    """The bucket, whose first write lands but whose answer never comes (a timeout, as when
    a leader steps down after storing); `first` writes instead of the caller's write."""

    def __init__(self, kv: KeyValue, first=None) -> None:
        self._kv, self._first, self.writes = kv, first, 0

    async def create(self, key: str, value: bytes) -> int:
        return await self._write(lambda: self._kv.create(key, value))

    async def update(self, key: str, value: bytes, last: int) -> int:
        return await self._write(lambda: self._kv.update(key, value, last))

    async def _write(self, write) -> int:
        self.writes += 1
        if self.writes == 1:
            await (self._first or write)()
            raise BusTimeout("the bus did not answer within 4 s")
        return await write()


async def _answer_lost(nats_client: Client, first=None) -> tuple[KvMemoryStore, AnswerLost]:
    kv = await nats_client.jetstream().key_value(MEMORIES_BUCKET)
    lost = AnswerLost(kv, first)
    return KvMemoryStore(lost, LatestValues(nats_client, MEMORIES_BUCKET)), lost


async def test_a_create_whose_answer_was_lost_is_asked_again_and_is_that_create(
    js: JetStreamContext, nats_client: Client, workspace: str
) -> None:
    store, lost = await _answer_lost(nats_client)
    memory = a_memory(workspace)

    created = await store.create(memory, "cmd-1")

    assert lost.writes == 2  # the second met the record the first had stored
    assert created == await store.get(workspace, memory.id)
    assert (created.memory, created.last_command_id) == (memory, "cmd-1")


async def test_a_replace_whose_answer_was_lost_is_that_replace(
    js: JetStreamContext, nats_client: Client, workspace: str
) -> None:
    store, lost = await _answer_lost(nats_client)
    kv = await nats_client.jetstream().key_value(MEMORIES_BUCKET)
    kept = KvMemoryStore(kv, LatestValues(nats_client, MEMORIES_BUCKET))
    memory = a_memory(workspace)
    current = await kept.create(memory, "cmd-1")
    changed = replace(memory, body="the build uses uv 0.9")

    replaced = await store.replace(current, changed, "cmd-2")

    assert (replaced.memory, replaced.last_command_id) == (changed, "cmd-2")
    assert replaced.revision > current.revision
    assert replaced == await store.get(workspace, memory.id)


async def test_another_commands_write_met_on_a_retry_is_still_a_conflict(
    js: JetStreamContext, nats_client: Client, workspace: str
) -> None:
    memory = a_memory(workspace)
    kv = await nats_client.jetstream().key_value(MEMORIES_BUCKET)
    other = KvMemoryStore(kv, LatestValues(nats_client, MEMORIES_BUCKET))
    store, _ = await _answer_lost(nats_client, first=lambda: other.create(memory, "cmd-other"))

    with pytest.raises(ConcurrentUpdate, match="already exists"):
        await store.create(memory, "cmd-1")
    assert (await store.get(workspace, memory.id)).last_command_id == "cmd-other"
