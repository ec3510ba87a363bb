"""Rights follow the target (issue 24): a write that changes another memory's standing needs
the write right on that memory's node, not only on the writer's own. Agent bob, homed at
`product:x/team:a/agent:bob`, reads the root (`global`) but may not write it, and writes the
product's node (an ancestor other than the root)."""

from __future__ import annotations

import pytest
from memhive.v1 import events_pb2
from memhive_application.announcements import Announcer
from memhive_domain.changes import MemoryChanges
from memhive_domain.consolidation import ConsolidationRequest
from memhive_domain.edges import EdgeDraft
from memhive_domain.errors import NotAllowed
from memhive_domain.memory import MemoryDraft
from memhive_domain.principals import Principal, Role
from memhive_domain.scopes import Scope
from memhive_query.use_cases.conflicts import ConflictCheck
from memhive_query.use_cases.consolidate import ConsolidateMemories
from memhive_query.use_cases.identical import IdenticalSaves
from memhive_query.use_cases.link import EdgeCommands, LinkMemories
from memhive_query.use_cases.memories import ForgetMemory, MemoryReader
from memhive_query.use_cases.save import SaveMemory
from memhive_query.use_cases.update import UpdateMemory

from tests.fakes import (
    FakeEmbedder,
    FakeLexicalIndex,
    FakePublisher,
    FakeStore,
    FakeVectorIndex,
    FakeWaiter,
    FixedClock,
)
from tests.unit.query.memories import NOW, memory, mid

BOB = Principal("ws", "bob", Role.AGENT, "product:x/team:a/agent:bob")
ROOT_WIDE, PRODUCT, OWN = 1, 2, 3  # memories at global, at product:x, at bob's own node


class Rig:
    def __init__(self) -> None:
        self.store, self.publisher, clock = FakeStore(), FakePublisher(), FixedClock(NOW)
        waiter = FakeWaiter()
        edges = EdgeCommands(self.publisher, waiter, 1.0)
        reader = MemoryReader(self.store, FakeLexicalIndex(), clock)
        self.save = SaveMemory(
            FakeEmbedder(), Announcer(self.publisher), IdenticalSaves(self.store, waiter),
            waiter, clock, 1.0,
            conflicts=ConflictCheck(FakeVectorIndex(), self.store, 0.85), edges=edges,
        )  # fmt: skip
        self.link = LinkMemories(self.store, edges, clock)
        self.update = UpdateMemory(reader, self.publisher, waiter, clock, 1.0)
        self.forget = ForgetMemory(reader, self.publisher, waiter, clock, 1.0)
        self.consolidate = ConsolidateMemories(reader, self.save, None)
        self.store.put(memory(ROOT_WIDE))
        self.store.put(memory(PRODUCT, scope=Scope.PRODUCT, product_id="x"))
        bobs = dict(scope=Scope.PRODUCT, product_id="x", team_id="a", agent_id="bob")
        self.store.put(memory(OWN, **bobs))
        self.store.put(memory(4, **bobs))

    def draft(self) -> MemoryDraft:
        return MemoryDraft(kind="fact", body="the new version")


async def test_superseding_a_memory_needs_its_node_writable() -> None:
    rig = Rig()
    with pytest.raises(NotAllowed, match="cannot supersede.*'global'"):
        await rig.save(BOB, rig.draft(), "persisted", supersedes=[mid(ROOT_WIDE)])
    assert rig.publisher.sent == []  # neither the save nor its edge
    outcome = await rig.save(BOB, rig.draft(), "persisted", supersedes=[mid(PRODUCT)])
    assert outcome.status == "persisted"
    # The gateway records the save itself, as bob's; the edge goes to ingest as a command
    # that says who asked, so ingest can check the same rights again.
    [(_, saved, _), (_, link, _)] = rig.publisher.sent
    assert isinstance(saved, events_pb2.MemorySaved) and saved.requested_by == "bob"
    assert rig.store.rows[("ws", saved.memory.id)].memory.created_by == "bob"
    assert (link.requester.role, link.requester.home) == ("agent", BOB.home)


@pytest.mark.parametrize(
    ("kind", "src", "dst", "allowed"),
    [
        ("updates", OWN, ROOT_WIDE, False),  # would make the global memory stale
        ("contradicts", OWN, ROOT_WIDE, False),  # the older end, global, would lose
        ("contradicts", ROOT_WIDE, OWN, False),  # src's record is written too
        ("related_to", OWN, ROOT_WIDE, True),  # changes nobody's standing
        ("updates", OWN, PRODUCT, True),
        ("contradicts", OWN, 4, True),
    ],
)
async def test_a_link_needs_the_node_of_every_end_it_demotes(
    kind: str, src: int, dst: int, allowed: bool
) -> None:
    rig = Rig()
    draft = EdgeDraft(mid(src), mid(dst), kind)
    if allowed:
        assert (await rig.link(BOB, draft)).status == "created"
        return
    with pytest.raises(NotAllowed, match=f"cannot link {kind}.*'global'"):
        await rig.link(BOB, draft)
    assert rig.publisher.sent == []


async def test_consolidating_needs_every_sources_node_writable() -> None:
    rig = Rig()
    request = ConsolidationRequest(ids=[mid(ROOT_WIDE), mid(PRODUCT)], body="merged")
    with pytest.raises(NotAllowed, match="cannot consolidate.*'global'"):
        await rig.consolidate(BOB, request, "persisted")
    assert rig.publisher.sent == []


@pytest.mark.parametrize(
    "changes",
    [MemoryChanges(pinned=True), MemoryChanges(clear_all_flags=True)],
)
async def test_pinning_and_clearing_flags_need_the_node_writable(changes: MemoryChanges) -> None:
    rig = Rig()
    with pytest.raises(NotAllowed, match="cannot change.*'global'"):
        await rig.update(BOB, mid(ROOT_WIDE), changes, wait="persisted")
    with pytest.raises(NotAllowed, match="cannot forget.*'global'"):
        await rig.forget(BOB, mid(ROOT_WIDE), "persisted")
    assert rig.publisher.sent == []
