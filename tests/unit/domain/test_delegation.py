"""Delegated token administration: an admin grants only what it holds, where it holds it."""

from __future__ import annotations

import pytest
from memhive_domain.delegation import administers, ensure_may_grant, role_within
from memhive_domain.errors import InvalidInput, NotAllowed
from memhive_domain.principals import Principal, Role

TEAM_ADMIN = Principal("ws", "lead", Role.ADMIN, "product:x/team:a")
ROOT_ADMIN = Principal("ws", "root", Role.ADMIN)


def test_roles_are_ordered_by_what_they_may_do() -> None:
    order = [Role.VIEWER, Role.AGENT, Role.MEMBER, Role.ADMIN]
    for i, granted in enumerate(order):
        for j, held in enumerate(order):
            assert role_within(granted, held) == (i <= j), (granted, held)


@pytest.mark.parametrize(
    ("home", "allowed"),
    [
        ("product:x/team:a", True),
        ("product:x/team:a/agent:bob", True),
        ("product:x", False),  # above
        ("global", False),  # the escalation: a workspace-wide admin
        ("product:x/team:b", False),  # a sibling
        ("product:y/team:a", False),  # same name, another branch
    ],
)
def test_a_subtree_admin_administers_its_subtree_only(home: str, allowed: bool) -> None:
    assert administers(TEAM_ADMIN, Role.ADMIN, home) == allowed
    assert administers(ROOT_ADMIN, Role.ADMIN, home)


def test_issuing_above_the_home_or_the_role_is_refused_naming_the_limit() -> None:
    with pytest.raises(NotAllowed, match="homed at 'global'.*'product:x/team:a'"):
        ensure_may_grant(TEAM_ADMIN, Role.ADMIN, "global")
    member = Principal("ws", "m", Role.MEMBER, "product:x")
    with pytest.raises(NotAllowed, match="no role above its own"):
        ensure_may_grant(member, Role.ADMIN, "product:x")
    ensure_may_grant(TEAM_ADMIN, Role.ADMIN, "product:x/team:a/agent:bob")
    ensure_may_grant(member, Role.AGENT, "product:x/team:q")


def test_a_home_that_is_not_a_path_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="home"):
        ensure_may_grant(ROOT_ADMIN, Role.VIEWER, "team:a/product:x")


def test_a_corrupt_record_home_is_the_roots_alone() -> None:
    assert administers(ROOT_ADMIN, Role.VIEWER, "not a path")
    assert not administers(TEAM_ADMIN, Role.VIEWER, "not a path")
