"""The dashboard's index over fakes: refinements are applied to listing pages with a
bounded scan, and every problem of the form is reported at once."""

from __future__ import annotations

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.listing import ListPosition, encode_cursor
from memhive_domain.principals import Principal, Role
from memhive_domain.recall import SelectionRequest
from memhive_domain.scopes import Scope
from memhive_domain.sources import Source
from memhive_ports import LaneHit
from memhive_query.dashboard.browse import (
    PAGE_SIZE,
    SCAN_PAGES,
    BrowseMemories,
    BrowseRequest,
    RefinementFields,
    Sort,
    readable_nodes,
)
from memhive_query.use_cases.memories import MemoryReader

from tests.fakes import T0, FakeLexicalIndex, FakeStore, FixedClock
from tests.unit.query.memories import MEMBER, NOW, memory, mid

TOTAL = 300
NOTE = 250  # the only memory from a note, far down the listing


def browse() -> BrowseMemories:
    store = FakeStore()
    for n in range(1, TOTAL + 1):
        store.put(memory(n, source=Source.NOTE if n == NOTE else Source.AGENT))
    lexical = FakeLexicalIndex([LaneHit(mid(n), 1.0) for n in range(1, TOTAL + 1)])
    reader = MemoryReader(store, lexical, FixedClock(NOW))
    return BrowseMemories(reader, recall=None, clock=FixedClock(NOW))


def after(n: int) -> str:
    """The listing's cursor positioned at the n-th memory (the fake lane lists at T0)."""
    return encode_cursor(ListPosition(T0, mid(n)))


def request(cursor: str | None = None, **refine: str) -> BrowseRequest:
    return BrowseRequest("", SelectionRequest(), RefinementFields(**refine), Sort.NEWEST, cursor)


async def test_without_a_refinement_one_listing_page_is_read() -> None:
    page = await browse()(MEMBER, request())
    assert [m.id for m in page.items] == [mid(n) for n in range(1, PAGE_SIZE + 1)]
    assert (page.next_cursor, page.scanned) == (after(PAGE_SIZE), PAGE_SIZE)


async def test_a_refinement_reads_a_bounded_number_of_pages_then_goes_on() -> None:
    use_case = browse()
    first = await use_case(MEMBER, request(source="note"))
    assert first.items == [] and first.scanned == SCAN_PAGES * PAGE_SIZE
    assert first.next_cursor == after(SCAN_PAGES * PAGE_SIZE)
    second = await use_case(MEMBER, request(first.next_cursor, source="note"))
    assert [m.id for m in second.items] == [mid(NOTE)]
    assert second.next_cursor is None


async def test_every_problem_of_the_form_at_once() -> None:
    bad = BrowseRequest(
        "",
        SelectionRequest(kinds=["rumour"]),
        RefinementFields(visibility="secret", created_from="soon"),
        Sort.NEWEST,
    )
    with pytest.raises(InvalidInput) as caught:
        await browse()(MEMBER, bad)
    assert [p.field for p in caught.value.problems] == ["kinds", "visibility", "created_from"]


def test_the_nodes_offered_are_the_home_lineage_and_those_of_the_memories_shown() -> None:
    shown = [
        memory(1, scope=Scope.PRODUCT, product_id="ios", team_id="mobile", agent_id="bob"),
        memory(2, scope=Scope.PRODUCT, product_id="web"),
    ]
    nodes = ["global", "product:ios", "product:ios/team:mobile", "product:web"]
    assert readable_nodes(MEMBER, shown) == nodes  # another agent's LOCAL node: not offered
    admin = Principal("ws", "root", role=Role.ADMIN)
    assert readable_nodes(admin, shown) == sorted([*nodes, "product:ios/team:mobile/agent:bob"])
    homed = Principal("ws", "carl", home="product:ios/team:mobile")
    assert readable_nodes(homed, []) == ["global", "product:ios", "product:ios/team:mobile"]
