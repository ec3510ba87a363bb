"""The dashboard's index over fakes: refinements are applied to listing pages with a
bounded scan, every problem of the form is reported at once, counts are the selection's
(not the page size), a search shows what an agent would get unless asked for the weaker
matches, and a superseded memory is marked with its successor."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memhive_domain.curation import Curation, Flag, FlagKind
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
from memhive_query.dashboard.standing import Standing
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.supersession_resolver import RecalledMemory

from tests.fakes import T0, FakeLexicalIndex, FakeStore, FixedClock
from tests.unit.query.memories import MEMBER, NOW, memory, mid, updates

TOTAL = 300
NOTE = 250  # the only memory from a note, far down the listing


class CannedRecall:
    """Recall's answer, scripted: (memory number, confidence) best first."""

    def __init__(self, answers: list[tuple[int, float]]) -> None:
        self.answers, self.asked = answers, []

    async def __call__(self, principal, text, selection, max_results, **options):
        self.asked.append(options)
        return [RecalledMemory(memory(n), 1.0, 1.0, confidence=c) for n, c in self.answers]


def browse(store: FakeStore | None = None, recall: CannedRecall | None = None) -> BrowseMemories:
    if store is None:
        store = FakeStore()
        for n in range(1, TOTAL + 1):
            store.put(memory(n, source=Source.NOTE if n == NOTE else Source.AGENT))
    lexical = FakeLexicalIndex([LaneHit(mid(n), 1.0) for n in range(1, TOTAL + 1)])
    clock = FixedClock(NOW)
    reader = MemoryReader(store, lexical, clock)
    return BrowseMemories(reader, recall, lexical, Standing(store, clock), clock)


def after(n: int) -> str:
    """The listing's cursor positioned at the n-th memory (the fake lane lists at T0)."""
    return encode_cursor(ListPosition(T0, mid(n)))


def request(cursor: str | None = None, **refine: str) -> BrowseRequest:
    return BrowseRequest("", SelectionRequest(), RefinementFields(**refine), Sort.NEWEST, cursor)


async def test_without_a_refinement_one_listing_page_is_read() -> None:
    page = await browse()(MEMBER, request())
    assert [i.memory.id for i in page.items] == [mid(n) for n in range(1, PAGE_SIZE + 1)]
    assert (page.next_cursor, page.scanned) == (after(PAGE_SIZE), PAGE_SIZE)
    assert (page.total, page.refined) == (TOTAL, False)  # the selection's count, not 25


async def test_a_refinement_reads_a_bounded_number_of_pages_then_goes_on() -> None:
    use_case = browse()
    first = await use_case(MEMBER, request(source="note"))
    assert first.items == [] and first.scanned == SCAN_PAGES * PAGE_SIZE
    assert (first.total, first.refined) == (TOTAL, True)
    assert first.next_cursor == after(SCAN_PAGES * PAGE_SIZE)
    second = await use_case(MEMBER, request(first.next_cursor, source="note"))
    assert [i.memory.id for i in second.items] == [mid(NOTE)]
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


def search(text: str = "which region?", *, weaker: bool = False) -> BrowseRequest:
    return BrowseRequest(
        text, SelectionRequest(), RefinementFields(), Sort.RELEVANCE, None, weaker=weaker
    )


async def test_a_search_shows_what_an_agent_gets_and_counts_the_weaker_it_left_out() -> None:
    recall = CannedRecall([(1, 0.4), (2, 0.02), (3, 0.009), (4, 0.0)])
    page = await browse(recall=recall)(MEMBER, search())
    assert [(i.memory.id, i.confidence) for i in page.items] == [(mid(1), 0.4), (mid(2), 0.02)]
    assert (page.weaker_left_out, page.total) == (2, None)
    # A person browsing is not an agent recalling; superseded ones come back, marked.
    assert recall.asked[0] == {
        "record_hits": False,
        "include_superseded": True,
        "min_confidence": 0.0,
    }
    audit = await browse(recall=recall)(MEMBER, search(weaker=True))
    assert [i.memory.id for i in audit.items] == [mid(n) for n in (1, 2, 3, 4)]
    assert audit.weaker_left_out == 0


async def test_gibberish_matches_nothing_with_the_weaker_matches_one_click_away() -> None:
    page = await browse(recall=CannedRecall([(1, 0.003), (2, 0.001)]))(MEMBER, search("qzx"))
    assert page.items == [] and page.weaker_left_out == 2


async def test_a_listing_marks_a_superseded_memory_with_its_successor() -> None:
    store = FakeStore()
    old, new, other = memory(1, days_ago=20), memory(2, days_ago=5), memory(3)
    edge = updates(new, old)
    store.put(old, (edge,))
    store.put(new, (edge,))
    store.put(other)
    page = await browse(store)(MEMBER, request())
    marks = {i.memory.id: i.superseded_by for i in page.items}
    assert marks == {mid(1): mid(2), mid(2): None, mid(3): None}


def test_the_badges_say_flagged_stale_and_expired_as_of_the_page() -> None:
    flag = Flag("f1", FlagKind.UNVERIFIED, "not checked", "u2", NOW)
    shown = {
        "fresh": memory(1, days_ago=1),
        "old": memory(2, days_ago=400),  # a fact: past its 180-day half-life
        "flagged": memory(3, days_ago=1, curation=Curation(flags=(flag, flag))),
        "expired": memory(4, expires_at=NOW - timedelta(seconds=1)),
    }
    standing = Standing(FakeStore(), FixedClock(NOW))
    listed = {k: standing.of_search([RecalledMemory(m, 1, 1)]) for k, m in shown.items()}
    badges = {k: (i.stale, i.flag_kinds, i.expired, i.confidence) for k, (i,) in listed.items()}
    assert badges == {
        "fresh": (False, [], False, 0.0),
        "old": (True, [], False, 0.0),
        "flagged": (False, ["unverified"], False, 0.0),
        "expired": (False, [], True, 0.0),
    }
