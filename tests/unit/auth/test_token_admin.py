"""TokenAdmin (the token responder's and the CLI's use case) bounded by the admin's home:
issue, list, rotate and revoke only at or below it, never a role above its own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive_application.audit_trail import AuditTrail
from memhive_application.tokens import TokenAdmin
from memhive_domain.audit import Outcome
from memhive_domain.errors import NotAllowed, NotFound
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import TokenDraft, TokenRecord

from tests.fakes import FakeAuditLog, FakeTokenDirectory, FixedClock

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
TEAM_ADMIN = Principal("ws", "lead", Role.ADMIN, "product:x/team:a")
ROOT_ADMIN = Principal("ws", "root", Role.ADMIN)

RECORDS = {
    "root": TokenRecord("1000000000000000", "ws", "root", Role.ADMIN),
    "team-b": TokenRecord("2000000000000000", "ws", "eve", Role.AGENT, home="product:x/team:b"),
    "bob": TokenRecord("3000000000000000", "ws", "bob", Role.AGENT, home="product:x/team:a/agent:bob"),
    "peer": TokenRecord("4000000000000000", "ws", "peer", Role.ADMIN, home="product:x/team:a"),
    "other": TokenRecord("5000000000000000", "other", "x", Role.VIEWER, home="product:x/team:a"),
}  # fmt: skip


def admin() -> tuple[TokenAdmin, FakeTokenDirectory, FakeAuditLog]:
    directory, audit = FakeTokenDirectory(RECORDS), FakeAuditLog()
    clock = FixedClock(NOW)
    return TokenAdmin(directory, AuditTrail(audit, clock), clock), directory, audit


async def test_a_subtree_admin_cannot_mint_a_workspace_wide_admin() -> None:
    tokens, directory, audit = admin()
    with pytest.raises(NotAllowed, match="global"):
        await tokens.create(TEAM_ADMIN, TokenDraft("ws", "esc", Role.ADMIN, home="global"))
    assert directory.created == []
    assert audit.entries[-1].outcome is Outcome.DENIED


async def test_a_subtree_admin_issues_within_its_subtree() -> None:
    tokens, _, _ = admin()
    draft = TokenDraft("ignored", "kid", Role.ADMIN, home="product:x/team:a/agent:kid")
    record, _ = await tokens.create(TEAM_ADMIN, draft)
    assert (record.workspace_id, record.home) == ("ws", "product:x/team:a/agent:kid")


async def test_a_subtree_admin_lists_only_its_subtree() -> None:
    tokens, _, _ = admin()
    listed = {r.user_id for r in await tokens.list(TEAM_ADMIN)}
    assert listed == {"bob", "peer"}
    assert {r.user_id for r in await tokens.list(ROOT_ADMIN)} == {"root", "eve", "bob", "peer"}


@pytest.mark.parametrize("victim", ["1000000000000000", "2000000000000000", "5000000000000000"])
async def test_tokens_outside_the_subtree_look_unknown_to_revoke_and_rotate(victim: str) -> None:
    tokens, directory, _ = admin()
    with pytest.raises(NotFound):
        await tokens.revoke(TEAM_ADMIN, victim)
    with pytest.raises(NotFound):
        await tokens.rotate(TEAM_ADMIN, victim)
    assert await directory.get(victim) == RECORDS[_holder(victim)]


async def test_a_subtree_admin_revokes_and_rotates_within_it() -> None:
    tokens, directory, _ = admin()
    rotated, _ = await tokens.rotate(TEAM_ADMIN, "4000000000000000")
    assert rotated.rotated_at == NOW
    await tokens.revoke(TEAM_ADMIN, "3000000000000000")
    assert await directory.get("3000000000000000") is None


async def test_the_root_operator_is_unbounded() -> None:
    tokens, _, _ = admin()
    cli = Principal("ws", "cli", Role.ADMIN, credential="cli:ops")  # memhive_cli.operator
    record, _ = await tokens.create(cli, TokenDraft("ws", "root2", Role.ADMIN))
    assert record.home == "global"
    await tokens.revoke(cli, "1000000000000000")


def _holder(token_id: str) -> str:
    return next(k for k, r in RECORDS.items() if r.id == token_id)
