from pathlib import Path

import pytest
from memhive_domain.errors import NotAllowed
from memhive_domain.policy import (
    PERMISSIONS,
    REACHED_FROM,
    Action,
    allows,
    may_write_global,
    policy_table_markdown,
    require,
)
from memhive_domain.principals import Principal, Role

DOC = Path(__file__).parents[3] / "docs" / "access-control.md"
START, END = "<!-- policy-table:start -->\n", "\n<!-- policy-table:end -->"


def principal(role: Role, home: str = "global") -> Principal:
    return Principal("ws", "u", role, home)


def test_the_doc_table_is_the_policy() -> None:
    text = DOC.read_text()
    table = text[text.index(START) + len(START) : text.index(END)]
    assert table == policy_table_markdown(), "run `python -m memhive_domain.policy` into the doc"


def test_every_action_has_a_rule_and_a_way_in() -> None:
    assert set(PERMISSIONS) == set(Action)
    assert set(REACHED_FROM) == set(Action) and all(REACHED_FROM.values())


def test_products_are_defined_by_people_and_read_by_everyone() -> None:
    assert [r for r in Role if allows(principal(r), Action.DEFINE_PRODUCT)] == [
        Role.ADMIN,
        Role.MEMBER,
    ]
    assert all(allows(principal(r), Action.READ_PRODUCTS) for r in Role)
    with pytest.raises(
        NotAllowed, match="^an agent may not define product: only workspace members"
    ):
        require(principal(Role.AGENT), Action.DEFINE_PRODUCT)


@pytest.mark.parametrize("action", [Action.SAVE, Action.FORGET, Action.LINK, Action.UPDATE])
def test_a_viewer_cannot_write_and_is_told_who_can(action: Action) -> None:
    with pytest.raises(NotAllowed, match=f"viewer may not {action.value}: only workspace"):
        require(principal(Role.VIEWER), action)
    for role in (Role.ADMIN, Role.MEMBER, Role.AGENT):
        require(principal(role), action)


@pytest.mark.parametrize("action", [Action.MANAGE_TOKENS, Action.READ_AUDIT, Action.REINDEX])
def test_only_admins_administer(action: Action) -> None:
    assert [r for r in Role if allows(principal(r), action)] == [Role.ADMIN]


def test_dead_letters_are_for_people_not_agents() -> None:
    assert not allows(principal(Role.AGENT), Action.LIST_DEAD_LETTERS)
    assert allows(principal(Role.MEMBER), Action.LIST_DEAD_LETTERS)


def test_everyone_reads() -> None:
    for action in (Action.RECALL, Action.READ, Action.READ_BULLETIN, Action.READ_CONTEXT):
        assert all(allows(principal(r), action) for r in Role)


def test_global_is_written_by_admins_and_root_homed_writers_only() -> None:
    assert may_write_global(principal(Role.ADMIN, home="team-a"))
    assert may_write_global(principal(Role.AGENT))
    assert not may_write_global(principal(Role.AGENT, home="team-a"))
    assert not may_write_global(principal(Role.VIEWER))
