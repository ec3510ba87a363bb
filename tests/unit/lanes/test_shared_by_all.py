"""What every point of a vector lane shares, and which conditions a search then leaves out."""

from __future__ import annotations

from memhive_adapters.lane_conditions import (
    LOCAL,
    NESTED,
    NEVER,
    After,
    AnyOf,
    Equals,
    Excludes,
)
from memhive_adapters.vector.shared_by_all import SharedByAll

MEMBER = (Equals("workspace_id", "w"), Excludes("scope", (LOCAL,)), After("expires_at", 1.8e9))


def point(workspace: str = "w", expires_at: float = NEVER, *tokens: str) -> dict[str, object]:
    return {"workspace_id": workspace, "expires_at": expires_at, "scope": ["global", *tokens]}


def test_a_lane_of_one_workspace_with_nothing_expiring_needs_none_of_a_members_conditions() -> None:
    facts = SharedByAll()
    facts.widen([point(), point()])
    assert facts.needed(MEMBER) == ()


def test_an_empty_lane_keeps_the_workspace_condition() -> None:
    assert SharedByAll().needed(MEMBER) == (MEMBER[0],)


def test_a_second_workspace_brings_its_condition_back_and_widens_the_facts() -> None:
    facts = SharedByAll()
    assert not facts.widen([point()])  # the first write leaves nothing out that it breaks
    assert facts.widen([point("v")])
    assert facts.needed(MEMBER) == (MEMBER[0],)
    assert facts.needed((Equals("workspace_id", "v"),)) == (Equals("workspace_id", "v"),)


def test_another_workspace_than_the_lanes_is_never_left_out() -> None:
    facts = SharedByAll()
    facts.widen([point("w")])
    assert facts.needed((Equals("workspace_id", "v"),)) == (Equals("workspace_id", "v"),)


def test_a_memory_that_expires_brings_the_expiry_back() -> None:
    facts = SharedByAll()
    facts.widen([point()])
    assert facts.widen([point("w", 1.9e9)])
    assert facts.needed(MEMBER) == (MEMBER[2],)


def test_an_agents_local_memory_brings_its_exclusion_back_and_only_its_own() -> None:
    facts = SharedByAll()
    facts.widen([point()])
    not_nested = Excludes("scope", (NESTED,))
    assert facts.widen([point("w", NEVER, LOCAL)])
    assert facts.needed((*MEMBER, not_nested)) == (MEMBER[1],)


def test_conditions_it_knows_nothing_about_are_kept() -> None:
    facts = SharedByAll()
    facts.widen([point()])
    others = (
        Equals("scope", "global"),
        Excludes("scope", ("team",)),
        AnyOf("kind", ("fact",)),
        Equals("public", 1),
    )
    assert facts.needed(others) == others


def test_an_expiry_condition_at_the_end_of_time_is_kept() -> None:
    facts = SharedByAll()
    facts.widen([point()])
    assert facts.needed((After("expires_at", NEVER),)) == (After("expires_at", NEVER),)


def test_writes_that_break_nothing_do_not_widen() -> None:
    facts = SharedByAll()
    facts.widen([point("w", 1.9e9, LOCAL), point("v")])
    version = facts.version
    assert not facts.widen([point("u", 2.0e9, LOCAL)])
    assert facts.version == version
    assert facts.widen([point("u", NEVER, NESTED)])
    assert facts.version == version + 1


def test_opening_again_moves_the_version_on() -> None:
    facts = SharedByAll()
    facts.widen([point(), point("v")])
    assert facts.reread(None).version == facts.version + 1
