"""MemoryRevisions over fakes: one entry per revision from the log, and only for memories the
caller may see (members: forgotten ones too; anyone else: what GET shows)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from memhive_domain.errors import NotFound
from memhive_domain.memory import Memory, forget
from memhive_domain.principals import Principal
from memhive_domain.revisions import Revision
from memhive_domain.scopes import Scope
from memhive_query.use_cases.revisions import CLOCK_SLACK, MemoryRevisions

from tests.fakes import FakeRevisionLog, FakeStore, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid, public

TEAM_MEMBER = Principal("ws", "u2", home="product:app")


def revision(m: Memory, number: int, event: str) -> Revision:
    return Revision(replace(m, revision=number), "saved", event, f"cmd-{number}")


def history(store: FakeStore, m: Memory) -> tuple[MemoryRevisions, FakeRevisionLog]:
    store.put(m)
    changes = [revision(m, 1, "e1"), revision(m, 2, "e2"), revision(m, 1, "e1-again")]
    log = FakeRevisionLog({m.id: changes})
    return MemoryRevisions(store, log, FixedClock(NOW)), log


async def test_one_entry_per_revision_oldest_first_read_from_before_the_creation() -> None:
    m = memory(1)
    revisions, log = history(FakeStore(), m)
    found = await revisions(MEMBER, mid(1))
    assert [(r.memory.revision, r.event_id) for r in found] == [(1, "e1"), (2, "e2")]
    assert log.reads == [("ws", mid(1), m.created_at - CLOCK_SLACK)]


async def test_members_see_the_history_of_a_forgotten_memory_viewers_do_not() -> None:
    revisions, _ = history(FakeStore(), forget(public(1), NOW))
    assert len(await revisions(MEMBER, mid(1))) == 2
    with pytest.raises(NotFound):
        await revisions(VIEWER, mid(1))


async def test_a_viewer_sees_the_history_of_a_live_public_memory_only() -> None:
    store = FakeStore()
    revisions, _ = history(store, public(1))
    store.put(memory(2))  # private
    assert len(await revisions(VIEWER, mid(1))) == 2
    with pytest.raises(NotFound):
        await revisions(VIEWER, mid(2))


async def test_unknown_invalid_and_out_of_tree_memories_are_not_found() -> None:
    revisions, log = history(FakeStore(), memory(1, scope=Scope.PRODUCT, product_id="web"))
    for principal, memory_id in ((MEMBER, mid(9)), (MEMBER, "x"), (TEAM_MEMBER, mid(1))):
        with pytest.raises(NotFound):
            await revisions(principal, memory_id)
    assert log.reads == []  # the log is read only for a memory the caller may see
