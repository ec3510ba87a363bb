"""Recent activity over fakes: newest first within the caller's view, pages that continue
exactly where they ended, `since`, a read that stops early, records read in batches."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memhive_domain.activity import ActivityEvent, ActivityKind
from memhive_domain.errors import InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal, Role
from memhive_domain.scopes import Scope
from memhive_query.use_cases.activity import CHUNK, ActivityRequest, RecentActivity

from tests.fakes import FakeActivityLog, FakeStore, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public

BOB = Principal("ws", "bob", Role.AGENT, "product:ios/agent:bob")
EVE = Principal("ws", "eve", Role.AGENT, "product:ios/agent:eve")


def bobs(n: int) -> Memory:
    return memory(n, scope=Scope.PRODUCT, product_id="ios", agent_id="bob")


def saved(m: Memory, minutes_ago: int) -> ActivityEvent:
    return ActivityEvent(ActivityKind.SAVED, NOW - timedelta(minutes=minutes_ago), "u1", memory=m)


def world(events: list[ActivityEvent], span: int | None = None):
    store = FakeStore()
    for event in events:
        if event.memory is not None:
            store.put(event.memory)
    log = FakeActivityLog(events, span)
    return RecentActivity(log, store, FixedClock(NOW)), log, store


async def all_pages(activity: RecentActivity, who: Principal, **fields) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        page = await activity(who, ActivityRequest(cursor=cursor, **fields))
        pages.append([e.memories[0].id for e in page.entries])
        if (cursor := page.next_cursor) is None:
            return pages


async def test_each_caller_sees_only_its_view_newest_first_in_pages() -> None:
    events = [
        saved(public(1), 1),
        saved(memory(2), 2),  # private
        saved(bobs(3), 3),  # bob's LOCAL node
        saved(public(4), 4),
        saved(memory(5), 5),
    ]
    activity, _, _ = world(events)

    assert await all_pages(activity, MEMBER, limit=2) == [[mid(1), mid(2)], [mid(4), mid(5)]]
    assert await all_pages(activity, VIEWER, limit=2) == [[mid(1), mid(4)], []]
    assert await all_pages(activity, BOB, limit=10) == [[mid(1), mid(2), mid(3), mid(4), mid(5)]]
    assert mid(3) not in sum(await all_pages(activity, EVE, limit=10), [])


async def test_since_ends_the_listing() -> None:
    activity, _, _ = world([saved(public(n), n * 10) for n in range(1, 6)])
    page = await activity(MEMBER, ActivityRequest(since=NOW - timedelta(minutes=25), limit=10))
    assert [e.memories[0].id for e in page.entries] == [mid(1), mid(2)]
    assert page.next_cursor is None


async def test_a_read_that_stops_early_hands_back_a_cursor_that_goes_on() -> None:
    """The log reader examines a bounded part of the log per request: a page may be short
    (here: empty, nothing visible in the first part) and still continue."""
    events = [saved(memory(n), n) for n in range(1, 4)] + [saved(public(4), 4)]
    activity, log, _ = world(events, span=3)

    assert await all_pages(activity, VIEWER, limit=5) == [[], [mid(4)]]
    assert [start.log for start in log.reads] == [None, 1]


async def test_records_are_read_a_chunk_at_a_time() -> None:
    events = [saved(public(n), n) for n in range(1, 2 * CHUNK + 2)]
    activity, _, store = world(events)
    page = await activity(MEMBER, ActivityRequest(limit=100))
    assert len(page.entries) == 2 * CHUNK + 1
    assert [len(ids) for ids in store.reads] == [CHUNK, CHUNK, 1]


async def test_a_revision_announced_twice_is_shown_once() -> None:
    once = saved(public(1), 1)
    activity, _, _ = world([once, once, saved(public(2), 2)])
    page = await activity(MEMBER, ActivityRequest())
    assert [e.memories[0].id for e in page.entries] == [mid(1), mid(2)]


async def test_bad_requests_name_the_field() -> None:
    activity, _, _ = world([])
    with pytest.raises(InvalidInput) as refused:
        await activity(MEMBER, ActivityRequest(kinds=["nope"], limit=101, cursor="zz"))
    assert {p.field for p in refused.value.problems} == {"kind", "limit", "cursor"}
