"""ReadBulletin over fakes: the stored bulletin for the caller's audience, rendered once when
the scope has none yet, and only for scopes the caller may read."""

from __future__ import annotations

import asyncio

import pytest
from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_application.bulletins.scope_reader import READ_PAGE, ScopeReader
from memhive_domain.bulletin import BulletinBudget
from memhive_domain.bulletin_audience import Audience
from memhive_domain.errors import InvalidInput, NotAllowed
from memhive_domain.principals import Principal
from memhive_domain.scopes import ROOT, Scope, ScopeRef
from memhive_ports import InsufficientStorage, LaneHit
from memhive_query.use_cases.bulletins import ReadBulletin, parse_scope

from tests.fakes import FakeBulletinStore, FakeLexicalIndex, FakeStore, FakeTokenCounter, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public, updates

TEAM_MEMBER = Principal("ws", "u2", home="product:app")


class Rig:
    def __init__(self, *memories: int) -> None:
        self.store, self.kept = FakeStore(), FakeBulletinStore()
        self.lexical = FakeLexicalIndex([LaneHit(mid(n), 1.0) for n in memories])
        bulletins = ScopeBulletins(
            ScopeReader(self.store, self.lexical), self.kept, FakeTokenCounter(),
            BulletinBudget(total_tokens=500, per_section_tokens=200), FixedClock(NOW),
        )  # fmt: skip
        self.read = ReadBulletin(bulletins)


async def test_each_audience_reads_its_own_bulletin() -> None:
    rig = Rig(1, 2)
    rig.store.put(public(1))
    rig.store.put(memory(2))  # private
    members = await rig.read(MEMBER, "global", None)
    everyone = await rig.read(VIEWER, "global", None)
    assert members.scope == everyone.scope == ROOT
    assert set(members.bulletin.shown_ids) == {mid(1), mid(2)}
    assert everyone.bulletin.shown_ids == (mid(1),)
    assert mid(2) not in everyone.bulletin.text


async def test_a_scope_without_a_bulletin_is_rendered_once_and_kept() -> None:
    rig = Rig(1)
    rig.store.put(public(1))
    first = await rig.read(MEMBER, None, None)
    assert {key[2] for key in rig.kept.held} == set(Audience)  # both audiences kept at once
    rig.store.put(public(3))
    rig.lexical.hits.append(LaneHit(mid(3), 1.0))
    again = await rig.read(MEMBER, None, None)
    assert again.bulletin == first.bulletin  # the stored one: refreshing is the service's job


async def test_a_bulletin_is_still_read_when_the_store_takes_no_writes() -> None:
    """Reads keep working on a full disk: the render is answered, kept by a later read."""
    rig = Rig(1)
    rig.store.put(public(1))
    rig.kept.refusing = InsufficientStorage("memhive's disk is nearly full")
    read = await rig.read(MEMBER, None, None)
    assert read.bulletin.shown_ids == (mid(1),)
    assert rig.kept.held == {}


async def test_a_product_bulletin_shows_that_product_only() -> None:
    rig = Rig(1, 2)
    rig.store.put(public(1, scope=Scope.PRODUCT, product_id="app"))
    rig.store.put(public(2))  # global
    found = await rig.read(MEMBER, "product", "app")
    assert found.scope == ScopeRef(Scope.PRODUCT, "app")
    assert found.bulletin.shown_ids == (mid(1),)
    assert found.bulletin.scope_key == "product:app"


async def test_a_scope_outside_the_callers_tree_is_refused() -> None:
    rig = Rig()
    assert (await rig.read(TEAM_MEMBER, "global", None)).scope == ROOT  # an ancestor: readable
    with pytest.raises(NotAllowed, match="product:web"):
        await rig.read(TEAM_MEMBER, None, "web")
    assert not any(key[1] == "product:web" for key in rig.kept.held)


def test_parse_scope_reads_a_scope_a_product_or_a_path() -> None:
    assert parse_scope(None, None) == ROOT
    assert parse_scope("global", None) == ROOT
    assert parse_scope(None, "app") == ScopeRef(Scope.PRODUCT, "app")
    assert parse_scope("product", "app") == ScopeRef(Scope.PRODUCT, "app")
    team = ScopeRef(Scope.PRODUCT, "app", team_id="mobile")
    assert parse_scope("product:app/team:mobile", None) == team  # the route's {scope} as a path
    assert parse_scope(None, None, "product:app/team:mobile") == team


@pytest.mark.parametrize(
    ("scope", "product_id", "path"),
    [("product", None, None), ("team:x/product:y", None, None), ("global", "app", "product:web")],
)
def test_parse_scope_refuses_what_names_no_node(scope, product_id, path) -> None:
    with pytest.raises(InvalidInput):
        parse_scope(scope, product_id, path)


async def test_the_public_keeps_a_memory_superseded_by_a_private_one() -> None:
    """Issue 24: a reader never loses a memory to a successor it cannot see."""
    rig = Rig(1, 2)
    old, new = public(1, days_ago=3), memory(2, days_ago=1)  # new is private
    rig.store.put(old, (updates(new, old),))
    rig.store.put(new, (updates(new, old),))
    members = await rig.read(MEMBER, "global", None)
    everyone = await rig.read(VIEWER, "global", None)
    assert members.bulletin.shown_ids == (mid(2),)
    assert everyone.bulletin.shown_ids == (mid(1),)


async def test_the_scope_fingerprint_follows_the_public_audiences_supersession() -> None:
    """P2 updates P1 while a private Q already supersedes P1 for members: the members' set
    does not change, the public's does, so the scope must render again."""
    rig = Rig(1, 2, 3)
    p1, q, p2 = public(1, days_ago=3), memory(2, days_ago=2), public(3, days_ago=1)
    rig.store.put(p1, (updates(q, p1),))
    rig.store.put(q, (updates(q, p1),))
    rig.store.put(p2)
    reader = ScopeReader(rig.store, rig.lexical)
    before = await reader.read("ws", ROOT, NOW)
    rig.store.put(p1, (updates(q, p1), updates(p2, p1)))
    rig.store.put(p2, (updates(p2, p1),))
    after = await reader.read("ws", ROOT, NOW)
    assert before.superseded[Audience.MEMBERS] == after.superseded[Audience.MEMBERS]
    assert before.fingerprint != after.fingerprint


async def test_reading_a_large_scope_lets_other_tasks_run_between_pages() -> None:
    """A gateway shares the bulletin's event loop: 1,000 records are read and decoded a
    page at a time, not in one stretch the recalls beside it wait behind."""
    count = 1000
    rig = Rig(*range(1, count + 1))
    for n in range(1, count + 1):
        rig.store.put(memory(n))
    ticks = 0
    reading = True

    async def beside() -> None:
        nonlocal ticks
        while reading:
            ticks += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(beside())
    await asyncio.sleep(0)
    inputs = await ScopeReader(rig.store, rig.lexical).read("ws", ROOT, NOW)
    reading = False
    await other
    assert len(inputs.memories) == count
    assert ticks >= count // READ_PAGE - 1
