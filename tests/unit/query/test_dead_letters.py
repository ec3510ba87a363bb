"""WorkspaceDeadLetters over a fake reader: a member's read-only view of the letters whose
original subject is of their workspace, newest first, bounded."""

from __future__ import annotations

import pytest
from memhive_domain.errors import NotAllowed
from memhive_domain.principals import Principal, Role
from memhive_ports.dead_letters import DeadLetter
from memhive_query.use_cases.dead_letters import MAX_LETTERS, SCAN_LIMIT, WorkspaceDeadLetters

from tests.fakes import FakeDeadLetters
from tests.unit.query.memories import MEMBER, VIEWER

AGENT = Principal("ws", "bot", Role.AGENT)


def letter(sequence: int, consumer: str, workspace: str) -> DeadLetter:
    subject = f"memhive.cmd.memory.save.{workspace}"
    return DeadLetter(sequence, consumer, subject, "poison", 1, b"", None, {})


@pytest.fixture
def reader() -> FakeDeadLetters:
    return FakeDeadLetters(
        [
            letter(1, "ingest", "ws"),
            letter(2, "ingest", "other"),
            letter(3, "embed", "ws"),
            letter(4, "ingest", "ws"),
            letter(5, "embed", "ws-2"),  # a workspace whose id starts like the caller's
        ]
    )


async def test_a_member_sees_the_letters_of_their_workspace_newest_first(reader) -> None:
    letters = WorkspaceDeadLetters(reader)
    assert [d.sequence for d in await letters(MEMBER, None, 10)] == [4, 3, 1]
    assert [d.sequence for d in await letters(MEMBER, "ingest", 10)] == [4, 1]
    assert [d.sequence for d in await letters(MEMBER, None, 2)] == [4, 3]


async def test_the_read_is_bounded(reader) -> None:
    await WorkspaceDeadLetters(reader)(MEMBER, None, MAX_LETTERS * 10)
    assert reader.scans == [(MAX_LETTERS, SCAN_LIMIT)]


@pytest.mark.parametrize("principal", [VIEWER, AGENT])
async def test_only_people_of_the_workspace_may_list(reader, principal) -> None:
    with pytest.raises(NotAllowed):
        await WorkspaceDeadLetters(reader)(principal, None, 10)
    assert reader.scans == []
