"""Skills over fakes: crystallizing procedures publishes a promotion for each and renders
SKILL.md; export only renders; candidates keep the procedures that earned promotion."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memhive.v1 import commands_pb2
from memhive_domain.curation import Curation, Flag, FlagKind
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_ports import LaneHit
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.skills import SkillRequest, Skills
from memhive_query.use_cases.update import UpdateMemory

from tests.fakes import FakeLexicalIndex, FakePublisher, FakeStore, FakeWaiter, FixedClock
from tests.unit.query.memories import MEMBER, NOW, VIEWER, memory, mid

DEPLOY = "1. Build the image\n2. Push it to the registry\n3. Roll out the deployment"


def procedure(n: int, **fields: object) -> Memory:
    return memory(n, kind=MemoryKind.PROCEDURE, **fields)


class Rig:
    def __init__(self, *listed: int, arrives: bool = True) -> None:
        self.store, self.publisher, clock = FakeStore(), FakePublisher(), FixedClock(NOW)
        lexical = FakeLexicalIndex([LaneHit(mid(n), 1.0) for n in listed])
        reader = MemoryReader(self.store, lexical, clock)
        update = UpdateMemory(reader, self.publisher, FakeWaiter(arrives=arrives), clock, 1.0)
        self.skills = Skills(reader, update, clock)

    def promoted(self) -> list[str]:
        commands = [c for _, c, _ in self.publisher.sent]
        assert all(isinstance(c, commands_pb2.UpdateMemory) and c.changes.promote for c in commands)
        return [c.memory_id for c in commands]


async def test_crystallize_promotes_each_procedure_and_renders_the_skill() -> None:
    rig = Rig()
    rig.store.put(procedure(1, body=DEPLOY))
    rig.store.put(procedure(2, body="Check the dashboards. Announce the release."))
    request = SkillRequest(mid(1), also=[mid(2), mid(1)])  # a repeated id counts once
    skill = await rig.skills.crystallize(MEMBER, request, "persisted")
    assert (skill.name, skill.status) == ("1-build-the-image-2-push", "crystallized")
    assert [m.id for m in skill.memories] == [mid(1), mid(2)]
    assert rig.promoted() == [mid(1), mid(2)]
    assert skill.content.startswith("---\nname: 1-build-the-image-2-push\n")
    assert "1. Build the image\n2. Push it to the registry" in skill.content
    assert "## Steps (2)\n\n1. Check the dashboards.\n2. Announce the release." in skill.content
    assert f'crystallized_at: "{NOW.isoformat()}"' in skill.content  # not yet applied: now


async def test_a_promotion_still_on_its_way_is_accepted() -> None:
    rig = Rig(arrives=False)
    rig.store.put(procedure(1, body=DEPLOY))
    skill = await rig.skills.crystallize(MEMBER, SkillRequest(mid(1), name="deploy"), "indexed")
    assert (skill.name, skill.status) == ("deploy", "accepted")
    assert skill.memories[0].curation.promoted_at == NOW  # as it was asked to be


async def test_only_visible_procedures_become_skills_and_only_for_writers() -> None:
    rig = Rig()
    rig.store.put(procedure(1, body=DEPLOY))
    rig.store.put(memory(2))  # a fact
    with pytest.raises(InvalidInput, match="only procedures"):
        await rig.skills.crystallize(MEMBER, SkillRequest(mid(1), also=[mid(2)]), "persisted")
    with pytest.raises(NotFound):
        await rig.skills.crystallize(MEMBER, SkillRequest(mid(1), also=[mid(9)]), "persisted")
    with pytest.raises(NotAllowed):
        await rig.skills.crystallize(VIEWER, SkillRequest(mid(1)), "persisted")
    with pytest.raises(InvalidInput):
        await rig.skills.crystallize(MEMBER, SkillRequest(mid(1), name="Not A Name"), "persisted")
    assert rig.publisher.sent == []


async def test_export_renders_the_records_as_they_are_without_writing() -> None:
    rig = Rig()
    promoted_at = NOW - timedelta(days=2)
    rig.store.put(procedure(1, body=DEPLOY, curation=Curation(promoted_at=promoted_at)))
    skill = await rig.skills.export(MEMBER, SkillRequest(mid(1)))
    assert skill.status == "crystallized" and rig.publisher.sent == []
    assert f'crystallized_at: "{promoted_at.isoformat()}"' in skill.content


async def test_candidates_are_the_listed_procedures_that_earned_promotion() -> None:
    wrong = Flag("f1", FlagKind.WRONG, "it breaks", "u2", NOW)
    rig = Rig(1, 2, 3, 4)
    rig.store.put(procedure(1, curation=Curation(confirmations=3)))
    rig.store.put(procedure(2, curation=Curation(confirmations=2)))
    rig.store.put(procedure(3, curation=Curation(confirmations=5, flags=(wrong,))))
    rig.store.put(procedure(4, curation=Curation(confirmations=3, promoted_at=NOW)))
    page = await rig.skills.candidates(MEMBER, None, None, 10)
    assert ([m.id for m in page.items], page.next_cursor) == ([mid(1)], None)


async def test_a_page_of_candidates_may_be_short_and_still_go_on() -> None:
    rig = Rig(1, 2, 3)
    for n in (1, 2, 3):
        rig.store.put(procedure(n, curation=Curation(confirmations=3 if n == 3 else 0)))
    first = await rig.skills.candidates(MEMBER, None, None, 2)
    assert first.items == [] and first.next_cursor is not None
    rest = await rig.skills.candidates(MEMBER, None, first.next_cursor, 2)
    assert [m.id for m in rest.items] == [mid(3)]
