"""The bulletin's copies of records: read once, re-read only once an event names them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import timedelta

from memhive.v1 import edges_pb2, events_pb2
from memhive_bulletin.record_cache import EventFreshRecords
from memhive_bulletin.scheduler import BulletinScheduler
from memhive_bulletin.subscribers import ScopeChangeSubscriber
from memhive_contracts import subjects
from memhive_contracts.codec import encode
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_domain.bulletin_schedule import BulletinSchedule
from memhive_domain.memory import Memory

from tests.fakes import FakeStore, FixedClock
from tests.unit.bulletin.test_scheduler import T0, RecordingRefresh
from tests.unit.query.memories import NOW, memory


@dataclass
class Msg:
    subject: str
    data: bytes
    headers: dict[str, str] | None = None


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def seeded(*memories: Memory) -> FakeStore:
    store = FakeStore()
    for m in memories:
        store.put(m)
    return store


def revised(stored: Memory, body: str) -> Memory:
    return replace(stored, body=body, revision=stored.revision + 1)


async def test_a_record_read_once_is_not_read_again_until_dropped() -> None:
    a, b = memory(1), memory(2)
    store = seeded(a, b)
    records = EventFreshRecords(store)
    first = await records.get_many("ws", [a.id, b.id])
    again = await records.get_many("ws", [a.id, b.id])
    assert again == first and store.reads == [[a.id, b.id]]
    assert records.reads == 2

    store.put(revised(a, "the new body"))
    records.drop("ws", [a.id])
    after = await records.get_many("ws", [a.id, b.id])
    assert after[a.id].memory.body == "the new body" and after[b.id] == first[b.id]
    assert store.reads[-1] == [a.id]
    assert list(after) == [a.id, b.id]  # in the order asked, held or read


async def test_a_read_in_flight_when_its_record_is_dropped_is_not_kept() -> None:
    """The read may have fetched the state from before the event: it answers, but the next
    read goes to the store again."""
    a = memory(1)
    store = seeded(a)
    gate = asyncio.Event()

    class SlowStore:
        async def get(self, workspace_id: str, memory_id: str):
            return (await self.get_many(workspace_id, [memory_id])).get(memory_id)

        async def get_many(self, workspace_id: str, memory_ids):
            found = await store.get_many(workspace_id, memory_ids)
            await gate.wait()
            return found

    records = EventFreshRecords(SlowStore())
    reading = asyncio.create_task(records.get_many("ws", [a.id]))
    await asyncio.sleep(0)
    store.put(revised(a, "changed while being read"))
    records.drop("ws", [a.id])
    gate.set()
    assert (await reading)[a.id].memory.body == a.body
    assert (await records.get_many("ws", [a.id]))[a.id].memory.body == "changed while being read"
    assert len(store.reads) == 2


async def test_a_drop_before_a_read_began_does_not_stop_it_being_kept() -> None:
    a = memory(1)
    store = seeded(a)
    records = EventFreshRecords(store)
    records.drop("ws", [a.id])
    await records.get_many("ws", [a.id])
    await records.get_many("ws", [a.id])
    assert len(store.reads) == 1


async def test_absent_records_are_read_each_time() -> None:
    store = FakeStore()
    records = EventFreshRecords(store)
    assert await records.get_many("ws", [memory(9).id]) == {}
    assert await records.get_many("ws", [memory(9).id]) == {}
    assert len(store.reads) == 2


async def test_at_most_capacity_records_are_kept_the_least_recently_read_leaving_first() -> None:
    a, b, c = memory(1), memory(2), memory(3)
    store = seeded(a, b, c)
    records = EventFreshRecords(store, capacity=2)
    await records.get_many("ws", [a.id, b.id])
    await records.get_many("ws", [a.id])  # a is now the most recently read
    await records.get_many("ws", [c.id])  # b leaves
    store.reads.clear()
    await records.get_many("ws", [a.id, b.id, c.id])
    assert store.reads == [[b.id]]


async def test_no_copy_is_kept_past_max_age() -> None:
    a = memory(1)
    store = seeded(a)
    clock = Clock()
    records = EventFreshRecords(store, max_age_s=60, monotonic=clock)
    await records.get_many("ws", [a.id])
    clock.now = 59
    await records.get_many("ws", [a.id])
    clock.now = 61
    await records.get_many("ws", [a.id])
    assert len(store.reads) == 2


async def test_workspaces_do_not_share_copies() -> None:
    a = memory(1)
    store = seeded(a, replace(a, workspace_id="other", body="the other workspace's"))
    records = EventFreshRecords(store)
    await records.get_many("ws", [a.id])
    records.drop("other", [a.id])
    assert (await records.get_many("other", [a.id]))[a.id].memory.body == "the other workspace's"
    assert (await records.get_many("ws", [a.id]))[a.id].memory.body == a.body


def saved(m: Memory) -> Msg:
    event = events_pb2.MemorySaved(event_id="e", memory=memory_to_pb(m))
    return Msg(subjects.for_workspace(subjects.MEMORY_SAVED, m.workspace_id), encode(event))


def linked(src: Memory, dst: Memory, kind: int = edges_pb2.EDGE_KIND_UPDATES) -> Msg:
    event = edges_pb2.MemoriesLinked(event_id="l")
    edge = event.edges.add(src_id=src.id, dst_id=dst.id, kind=kind, created_by="agent")
    edge.created_at.CopyFrom(to_timestamp(NOW))
    return Msg(subjects.for_workspace(subjects.MEMORIES_LINKED, "ws"), encode(event))


def subscriber(records: EventFreshRecords) -> ScopeChangeSubscriber:
    clock = FixedClock(T0)
    schedule = BulletinSchedule(timedelta(seconds=2), timedelta(seconds=30))
    return ScopeChangeSubscriber(
        BulletinScheduler(RecordingRefresh(clock), schedule, clock), records
    )


async def test_an_update_event_drops_the_copy_before_its_scope_is_marked_changed() -> None:
    a, b = memory(1), memory(2)
    store = seeded(a, b)
    records = EventFreshRecords(store)
    await records.get_many("ws", [a.id, b.id])
    updated = revised(a, "the body after the update")
    store.put(updated)
    await subscriber(records).handle_batch([saved(updated)])
    after = await records.get_many("ws", [a.id, b.id])
    assert after[a.id].memory.body == "the body after the update"
    assert store.reads[-1] == [a.id]


async def test_a_link_event_drops_both_ends_their_edges_changed() -> None:
    a, b, c = memory(1), memory(2), memory(3)
    store = seeded(a, b, c)
    records = EventFreshRecords(store)
    await records.get_many("ws", [a.id, b.id, c.id])
    store.reads.clear()
    await subscriber(records).handle_batch([linked(a, b)])
    assert store.reads == []  # their scopes were known: nothing read to learn them
    await records.get_many("ws", [a.id, b.id, c.id])
    assert store.reads == [[a.id, b.id]]  # the refresh reads the dropped ends afresh


class MarkedScopes:
    def __init__(self) -> None:
        self.marked: list = []

    def mark_changed(self, workspace_id, scope, causes) -> None:
        self.marked.append((workspace_id, scope))


async def marking(*memories: Memory, read_first: list[Memory]):
    """A subscriber over `memories` and the scopes it marks, `read_first` already in its
    copies (the store's reads counted from then on)."""
    store = seeded(*memories)
    records, scopes = EventFreshRecords(store), MarkedScopes()
    handle = ScopeChangeSubscriber(scopes, records).handle_batch  # type: ignore[arg-type]
    await records.get_many("ws", [m.id for m in read_first])
    store.reads.clear()
    return store, records, scopes, handle


async def test_a_link_marks_its_ends_scopes_reading_only_the_ends_never_seen() -> None:
    """A near-duplicate is linked again and again: its scope is known from its first read,
    dropped copy or not (a memory never moves)."""
    a, b = memory(1), replace(memory(2), product_id="other-product")
    store, records, scopes, handle = await marking(a, b, read_first=[a])

    await handle([linked(a, b)])
    await handle([linked(a, b)])

    assert store.reads == [[b.id]]  # b, never seen, once; a not at all
    both = {("ws", a.scope_ref), ("ws", b.scope_ref)}
    assert set(scopes.marked[:2]) == set(scopes.marked[2:]) == both and len(scopes.marked) == 4


async def test_a_related_to_link_changes_no_bulletin_nothing_dropped_read_or_marked() -> None:
    """A bulletin shows memories and which are superseded, not links: the classifier's
    near-duplicate links (most links) cost it nothing."""
    a, b = memory(1), replace(memory(2), product_id="other-product")
    store, records, scopes, handle = await marking(a, b, read_first=[a])

    await handle([linked(a, b, edges_pb2.EDGE_KIND_RELATED_TO)])
    await records.get_many("ws", [a.id])

    assert (scopes.marked, store.reads) == ([], [])


async def test_of_a_links_edges_only_those_that_can_supersede_mark_and_drop_their_ends() -> None:
    a, b = memory(1), memory(2)
    c = replace(memory(3), product_id="other-product")
    d, e = (replace(memory(n), product_id="third-product") for n in (4, 5))
    store, records, scopes, handle = await marking(a, b, c, d, e, read_first=[a, b, c, d, e])
    event = edges_pb2.MemoriesLinked(event_id="l")
    for (src, dst), kind in (
        ((a, b), edges_pb2.EDGE_KIND_CONTRADICTS),
        ((a, c), edges_pb2.EDGE_KIND_RELATED_TO),
        ((d, e), 99),  # a kind of a later version: taken to supersede
    ):
        edge = event.edges.add(src_id=src.id, dst_id=dst.id, kind=kind, created_by="agent")
        edge.created_at.CopyFrom(to_timestamp(NOW))

    await handle([Msg(subjects.for_workspace(subjects.MEMORIES_LINKED, "ws"), encode(event))])
    await records.get_many("ws", [a.id, b.id, c.id, d.id, e.id])

    assert set(scopes.marked) == {("ws", a.scope_ref), ("ws", d.scope_ref)}  # not c's
    assert store.reads == [[a.id, b.id, d.id, e.id]]  # c's copy, linked as related, kept


def indexed(m: Memory) -> Msg:
    event = events_pb2.MemoryIndexed(event_id="i", memory=memory_to_pb(m))
    return Msg(subjects.for_workspace(subjects.MEMORY_INDEXED, m.workspace_id), encode(event))


def forgotten(m: Memory) -> Msg:
    event = events_pb2.MemoryForgotten(event_id="f", memory=memory_to_pb(m))
    return Msg(subjects.for_workspace(subjects.MEMORY_FORGOTTEN, m.workspace_id), encode(event))


def started_before(store: FakeStore, days_ago: int) -> EventFreshRecords:
    """Records of a process started `days_ago` (`memory(n)` was created 10 days ago)."""
    return EventFreshRecords(store, started_at=NOW - timedelta(days=days_ago))


async def test_a_new_memorys_indexed_copy_is_its_record_and_costs_no_read() -> None:
    a = memory(1)
    store = seeded(a)
    records = started_before(store, days_ago=20)
    await subscriber(records).handle_batch([indexed(a)])
    held = await records.get_many("ws", [a.id])
    assert held[a.id].memory == a and held[a.id].edges == ()
    assert store.reads == [] and records.reads == 0


def indexed_together(*memories: Memory) -> Msg:
    event = events_pb2.MemoriesIndexed(
        event_id="t",
        indexed=[events_pb2.MemoryIndexed(event_id=m.id, memory=memory_to_pb(m)) for m in memories],
    )
    workspace = subjects.for_workspace(subjects.MEMORIES_INDEXED, memories[0].workspace_id)
    return Msg(workspace, encode(event))


async def test_memories_indexed_together_are_each_kept_and_their_scopes_marked_once() -> None:
    a, b = memory(1), memory(2)
    c = replace(memory(3), product_id="other-product")
    store = seeded(a, b, c)
    records, scopes = started_before(store, days_ago=20), MarkedScopes()
    handle = ScopeChangeSubscriber(scopes, records).handle_batch  # type: ignore[arg-type]
    await handle([indexed_together(a, b, c)])
    held = await records.get_many("ws", [a.id, b.id, c.id])
    assert {m: r.memory for m, r in held.items()} == {a.id: a, b.id: b, c.id: c}
    assert store.reads == [] and records.reads == 0  # each copy is its record, as alone
    assert scopes.marked == [("ws", a.scope_ref), ("ws", c.scope_ref)]


async def test_a_memory_linked_before_its_indexed_event_is_read_for_its_edges() -> None:
    """MemoriesLinked may come first (a save that links before embed indexes it): the
    announced copy, without edges, would render a stale supersession."""
    a, b = memory(1), memory(2)
    store = seeded(a, b)
    records = started_before(store, days_ago=20)
    handle = subscriber(records).handle_batch
    await handle([linked(a, b)])
    store.reads.clear()
    await handle([indexed(a)])
    await records.get_many("ws", [a.id])
    assert store.reads == [[a.id]]


async def test_a_memory_created_before_the_process_started_is_read() -> None:
    """A previous process may have handled a link naming it: nothing here tells."""
    a = memory(1)
    store = seeded(a)
    records = started_before(store, days_ago=5)
    await subscriber(records).handle_batch([indexed(a)])
    await records.get_many("ws", [a.id])
    assert store.reads == [[a.id]]


async def test_within_the_clock_skew_of_the_start_a_memory_is_read() -> None:
    a = memory(1)
    store = seeded(a)
    records = EventFreshRecords(store, started_at=a.created_at - timedelta(seconds=1))
    await subscriber(records).handle_batch([indexed(a)])
    await records.get_many("ws", [a.id])
    assert store.reads == [[a.id]]


async def test_a_later_revision_is_read_its_record_keeps_earlier_edges() -> None:
    a = memory(1)
    second = revised(a, "a second body")
    store = seeded(second)
    records = started_before(store, days_ago=20)
    await subscriber(records).handle_batch([indexed(second)])
    await records.get_many("ws", [a.id])
    assert store.reads == [[a.id]]


async def test_an_indexed_event_redelivered_after_a_forget_does_not_bring_it_back() -> None:
    a = memory(1)
    store = seeded(a)
    records = started_before(store, days_ago=20)
    handle = subscriber(records).handle_batch
    await handle([indexed(a)])
    gone = replace(a, forgotten=True, forgotten_at=NOW, revision=2)
    store.put(gone)
    await handle([forgotten(gone)])
    await handle([indexed(a)])  # the first delivery's redelivery
    assert (await records.get_many("ws", [a.id]))[a.id].memory.forgotten


async def test_a_process_that_may_share_the_durable_keeps_no_announced_copy() -> None:
    a = memory(1)
    store = seeded(a)
    records = EventFreshRecords(store)
    await subscriber(records).handle_batch([indexed(a)])
    await records.get_many("ws", [a.id])
    assert store.reads == [[a.id]]
