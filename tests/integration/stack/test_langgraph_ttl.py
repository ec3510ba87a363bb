"""LangGraph's TTLs on MemhiveStore, against the real stack: an item expires from every read
(get, listing, query, namespaces) and its memory from memhive's recall; a read moves the
expiry on unless told not to; a refresh never overwrites a write made since its read."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from memhive_client.langgraph import MemhiveStore
from memhive_client.langgraph.store import _Batch, _Read

NOTES = ("notes",)
SCRATCH = ("scratch",)
SECONDS = 1 / 60  # LangGraph's TTLs are minutes


@pytest.fixture
async def store(member_clients):
    store = MemhiveStore(index={"fields": ["text"]}, client_factory=member_clients)
    yield store
    await store.aclose()


async def recalled(member_clients, query: str) -> list[str]:
    client = member_clients()
    try:
        return [hit.body for hit in await client.recall(query)]
    finally:
        await client.aclose()


async def test_an_expired_item_is_gone_from_every_read_and_its_memory_from_recall(
    store: MemhiveStore, member_clients
) -> None:
    await store.aput(
        SCRATCH, "plan", {"text": "the migration runs tonight at ten"}, ttl=2 * SECONDS
    )
    await store.aput(NOTES, "owner", {"text": "Dana owns the billing service"})
    assert (await store.aget(SCRATCH, "plan", refresh_ttl=False)) is not None
    assert [
        i.key
        for i in await store.asearch((), query="when does the migration run?", refresh_ttl=False)
    ][:1] == ["plan"]
    assert "the migration runs tonight at ten" in await recalled(
        member_clients, "when does the migration run?"
    )

    await asyncio.sleep(2.6)
    assert "the migration runs tonight at ten" not in await recalled(
        member_clients, "when does the migration run?"
    )
    assert await store.aget(SCRATCH, "plan") is None
    assert [i.key for i in await store.asearch(())] == ["owner"]
    assert "plan" not in [i.key for i in await store.asearch((), query="the migration tonight")]
    assert await store.alist_namespaces() == [NOTES]
    assert (await store.aget(NOTES, "owner")).value == {"text": "Dana owns the billing service"}


async def test_a_read_moves_the_expiry_on_unless_told_not_to(member_clients) -> None:
    store = MemhiveStore(
        index={"fields": ["text"]}, ttl={"default_ttl": 3 * SECONDS}, client_factory=member_clients
    )
    try:
        await store.aput(NOTES, "read", {"text": "the release train leaves on Thursday"})
        await store.aput(NOTES, "unread", {"text": "the office plant needs water"})
        await asyncio.sleep(1.8)
        assert await store.aget(NOTES, "read") is not None  # refreshes: LangGraph's default
        assert await store.aget(NOTES, "unread", refresh_ttl=False) is not None
        await asyncio.sleep(1.8)  # past both puts' expiry: only the read one was moved on
        assert await store.aget(NOTES, "unread", refresh_ttl=False) is None
        assert await store.aget(NOTES, "read", refresh_ttl=False) is not None
        found = await store.asearch(
            NOTES, query="when does the release train leave?", refresh_ttl=False
        )
        assert [i.key for i in found] == ["read"]  # its memory's expiry moved on as well
        await asyncio.sleep(1.8)
        assert await store.aget(NOTES, "read") is None
    finally:
        await store.aclose()


async def test_code_written_for_a_sweeping_store_runs_unchanged(store: MemhiveStore) -> None:
    """PostgresStore's and SQLiteStore's sweeper calls: memhive expires on the server."""
    await store.aput(NOTES, "brief", {"text": "stand-up moved to 10:30"}, ttl=1 * SECONDS)
    sweeper = store.start_ttl_sweeper()
    await asyncio.sleep(1.6)
    assert store.sweep_ttl() == 0 and sweeper.done() and store.stop_ttl_sweeper()
    assert await store.aget(NOTES, "brief") is None  # gone all the same


async def test_a_put_without_a_ttl_keeps_the_item_and_its_memory(
    store: MemhiveStore, member_clients
) -> None:
    await store.aput(NOTES, "rule", {"text": "never deploy on Fridays"}, ttl=2 * SECONDS)
    await store.aput(NOTES, "rule", {"text": "never deploy on Fridays"}, ttl=None)
    await asyncio.sleep(2.6)
    assert (await store.aget(NOTES, "rule")).value == {"text": "never deploy on Fridays"}
    assert "never deploy on Fridays" in await recalled(member_clients, "when not to deploy?")


async def test_a_refresh_never_overwrites_a_write_made_since_its_read(
    store: MemhiveStore, member_clients
) -> None:
    await store.aput(NOTES, "state", {"text": "step one"}, ttl=60 * SECONDS)
    client = member_clients()
    try:
        batch = _Batch(store, client)
        (read,) = [r async for r in batch._entries(NOTES)]  # as a get or a search reads it
        await store.aput(NOTES, "state", {"text": "step two"}, ttl=60 * SECONDS)
        due = read.kv.model_copy(update={"expires_at": datetime.now(UTC)})  # a refresh is due
        await batch._refresh(_Read(read.place, due))
    finally:
        await client.aclose()
    assert (await store.aget(NOTES, "state", refresh_ttl=False)).value == {"text": "step two"}


@pytest.mark.parametrize("ttl", [0, -1, True, "5", 366 * 24 * 60 + 1])
async def test_a_ttl_memhive_cannot_keep_is_refused_before_anything_is_written(
    store: MemhiveStore, ttl
) -> None:
    with pytest.raises(ValueError, match="ttl"):
        await store.aput(NOTES, "x", {"text": "kept?"}, ttl=ttl)
    assert await store.aget(NOTES, "x") is None
    with pytest.raises(ValueError, match="ttl"):
        MemhiveStore(ttl={"default_ttl": ttl})
