"""KvKeyValueStore against a real nats-server: compare-and-set, create-only, TTL (the server's
and the record's), delete, listing per node, and concurrent writers that never lose a write."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta

import pytest
from memhive_adapters.clock import SystemClock
from memhive_adapters.nats.kv_key_value_store import KvKeyValueStore
from memhive_contracts.streams import KV_BUCKET
from memhive_domain.kv import ANYTHING, KvAddress, Precondition, RevisionMismatch, plan_write
from memhive_domain.scopes import ROOT, parse_scope_path
from nats.js import JetStreamContext

from tests.fakes import FixedClock

TEAM = parse_scope_path("product:ios.app/team:mobile", [])


@pytest.fixture
def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:10]}"


def write(address: KvAddress, value: object, precondition=ANYTHING, ttl_s=None, clock=None):
    now = (clock or SystemClock()).now()
    return plan_write(address, value, ttl_s=ttl_s, precondition=precondition, now=now)


async def test_a_value_round_trips_and_each_write_gets_a_higher_revision(
    js: JetStreamContext, ws: str
) -> None:
    store = KvKeyValueStore(js, SystemClock())
    # ':' and '.' are legal in keys and node paths but not as such in KV keys.
    here = KvAddress(ws, TEAM, "release:v2.1")
    assert await store.get(here) is None

    first = await store.put(write(here, {"step": 1, "by": "ünï"}), "bob")
    second = await store.put(write(here, {"step": 2}), "eve")

    got = await store.get(here)
    assert got is not None and got.value == {"step": 2} and got.updated_by == "eve"
    assert got.revision == second.revision > first.revision
    assert got.address == here and got.expires_at is None


async def test_compare_and_set_and_create_only(js: JetStreamContext, ws: str) -> None:
    store = KvKeyValueStore(js, SystemClock())
    here = KvAddress(ws, ROOT, "plan")
    created = await store.put(write(here, 1, Precondition(absent=True)), "bob")

    with pytest.raises(RevisionMismatch) as taken:
        await store.put(write(here, 2, Precondition(absent=True)), "eve")
    assert taken.value.current == created.revision
    updated = await store.put(write(here, 2, Precondition(revision=created.revision)), "eve")
    with pytest.raises(RevisionMismatch) as stale:
        await store.put(write(here, 3, Precondition(revision=created.revision)), "bob")
    assert stale.value.current == updated.revision
    with pytest.raises(RevisionMismatch):
        await store.put(write(KvAddress(ws, ROOT, "nothing"), 1, Precondition(revision=5)), "b")
    assert (await store.get(here)).value == 2


async def test_delete_then_create_again_never_reuses_a_revision(
    js: JetStreamContext, ws: str
) -> None:
    store = KvKeyValueStore(js, SystemClock())
    here = KvAddress(ws, ROOT, "flag")
    old = await store.put(write(here, True), "bob")

    with pytest.raises(RevisionMismatch):
        await store.delete(here, Precondition(revision=old.revision + 1000))
    assert await store.delete(here, Precondition(revision=old.revision))
    assert await store.get(here) is None
    assert not await store.delete(here, ANYTHING)  # nothing there any more

    again = await store.put(write(here, False, Precondition(absent=True)), "eve")
    assert again.revision > old.revision
    with pytest.raises(RevisionMismatch):  # a client still holding the old revision loses
        await store.put(write(here, "stale", Precondition(revision=old.revision)), "bob")


async def test_the_server_removes_an_entry_when_its_ttl_runs_out(
    js: JetStreamContext, ws: str
) -> None:
    store = KvKeyValueStore(js, SystemClock())
    here = KvAddress(ws, ROOT, "lease")
    await store.put(write(here, "held", ttl_s=1), "bob")
    assert (await store.get(here)).value == "held"
    assert await _stored_keys(js, ws) == 1

    await asyncio.sleep(1.5)
    assert await _stored_keys(js, ws) == 0  # gone from the bucket, not just hidden
    assert await store.get(here) is None
    assert (await store.put(write(here, "again", Precondition(absent=True)), "eve")).value


async def test_an_expired_entry_is_absent_before_the_server_removes_it(
    js: JetStreamContext, ws: str
) -> None:
    clock = FixedClock(SystemClock().now())
    store = KvKeyValueStore(js, clock)
    here = KvAddress(ws, ROOT, "session")
    await store.put(write(here, "live", ttl_s=600, clock=clock), "bob")

    clock.current += timedelta(seconds=600)
    assert await store.get(here) is None
    assert [e.address.key for e in (await store.list(ws, ROOT, None, 10)).entries] == []
    created = await store.put(write(here, "new", Precondition(absent=True), clock=clock), "eve")
    assert (await store.get(here)).revision == created.revision


async def test_listing_pages_through_one_node_in_write_order(js: JetStreamContext, ws: str) -> None:
    store = KvKeyValueStore(js, SystemClock())
    for n in range(5):
        await store.put(write(KvAddress(ws, TEAM, f"k{n}"), n), "bob")
    await store.put(write(KvAddress(ws, ROOT, "elsewhere"), 0), "bob")
    await store.put(write(KvAddress(f"{ws}-other", TEAM, "k9"), 9), "bob")
    await store.delete(KvAddress(ws, TEAM, "k1"), ANYTHING)
    await store.put(write(KvAddress(ws, TEAM, "k0"), "rewritten"), "bob")  # moves to the end

    keys, after = [], None
    for _ in range(5):
        page = await store.list(ws, TEAM, after, 2)
        keys += [e.address.key for e in page.entries]
        if (after := page.next_after) is None:
            break

    assert keys == ["k2", "k3", "k4", "k0"]
    assert [e.address.key for e in (await store.list(ws, ROOT, None, 10)).entries] == ["elsewhere"]


async def test_concurrent_writers_never_lose_an_update(js: JetStreamContext, ws: str) -> None:
    """Twelve writers add one each with compare-and-set, retrying on a conflict: the count
    ends at twelve (a lost update would leave it lower)."""
    store = KvKeyValueStore(js, SystemClock())
    here = KvAddress(ws, ROOT, "counter")
    await store.put(write(here, 0), "init")

    async def add_one(writer: int) -> int:
        conflicts = 0
        while True:
            current = await store.get(here)
            step = write(here, current.value + 1, Precondition(revision=current.revision))
            try:
                await store.put(step, f"w{writer}")
                return conflicts
            except RevisionMismatch:
                conflicts += 1

    conflicts = await asyncio.gather(*(add_one(w) for w in range(12)))
    assert (await store.get(here)).value == 12
    assert sum(conflicts) > 0  # they really raced


async def _stored_keys(js: JetStreamContext, ws: str) -> int:
    info = await js.stream_info(f"KV_{KV_BUCKET}", subjects_filter=f"$KV.{KV_BUCKET}.{ws}.>")
    return len(info.state.subjects or {})


def test_values_are_compact_json() -> None:
    assert json.loads(write(KvAddress("ws", ROOT, "a"), {"a": [1, 2]}).value_json) == {"a": [1, 2]}
