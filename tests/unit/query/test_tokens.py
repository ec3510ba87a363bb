"""GatewayTokens over a fake directory: admins list their workspace's tokens; changes are not
the gateway's to make (they go through `commands`, the token responder's port)."""

from __future__ import annotations

import pytest
from memhive_domain.errors import NotAllowed
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import TokenRecord
from memhive_query.use_cases.tokens import GatewayTokens

from tests.fakes import FakeTokenDirectory
from tests.unit.query.memories import MEMBER

ADMIN = Principal("ws", "root", Role.ADMIN)
COMMANDS = object()  # the token responder's port: the gateway only hands it on


def directory() -> FakeTokenDirectory:
    return FakeTokenDirectory(
        {
            "t1": TokenRecord("1111111111111111", "ws", "bot", Role.AGENT),
            "t2": TokenRecord("2222222222222222", "other", "bot", Role.AGENT),
            "t3": TokenRecord("3333333333333333", "ws", "ada", Role.MEMBER),
        }
    )


async def test_an_admin_lists_the_tokens_of_their_workspace_only() -> None:
    tokens = GatewayTokens(directory(), COMMANDS)  # type: ignore[arg-type]
    assert [r.id for r in await tokens.list(ADMIN)] == ["1111111111111111", "3333333333333333"]
    assert tokens.commands is COMMANDS


async def test_no_one_else_lists_tokens() -> None:
    with pytest.raises(NotAllowed, match="admin"):
        await GatewayTokens(directory(), COMMANDS).list(MEMBER)  # type: ignore[arg-type]


async def test_a_subtree_admin_lists_the_tokens_of_its_subtree_only() -> None:
    records = {
        "root": TokenRecord("1111111111111111", "ws", "root", Role.ADMIN),
        "mine": TokenRecord("2222222222222222", "ws", "bot", Role.AGENT, home="product:x/team:a"),
        "next": TokenRecord("3333333333333333", "ws", "eve", Role.AGENT, home="product:x/team:b"),
    }
    team_admin = Principal("ws", "lead", Role.ADMIN, "product:x/team:a")
    listed = await GatewayTokens(FakeTokenDirectory(records), COMMANDS).list(team_admin)  # type: ignore[arg-type]
    assert [r.id for r in listed] == ["2222222222222222"]
