"""`memhive token` and `memhive audit`: the arguments they take and the tables they print."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive_domain.audit import AuditAction, AuditEntry, Outcome
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import TokenRecord

from memhive_cli.audit import format_audit
from memhive_cli.tokens import format_tokens, role_of
from tests.unit.cli.test_dead_letters_cli import parse

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_create_takes_role_name_home_and_one_expiry() -> None:
    args = parse(
        "token", "create", "--workspace", "acme", "--user", "bot", "--role", "agent",
        "--name", "ci", "--home", "team-a", "--expires-in", "30d",
    )  # fmt: skip
    assert (role_of(args), args.name, args.home, args.expires_in) == (
        "agent",
        "ci",
        "team-a",
        "30d",
    )
    with pytest.raises(SystemExit):
        parse("token", "create", "--workspace", "a", "--user", "b", "--expires-in", "1d",
              "--expires-at", "2027-01-01T00:00Z")  # fmt: skip


def test_read_only_is_kept_as_viewer() -> None:
    assert role_of(parse("token", "create", "--workspace", "a", "--user", "b")) == "member"
    assert role_of(parse("token", "create", "--workspace", "a", "--user", "b", "--read-only")) == (
        "viewer"
    )
    with pytest.raises(ValueError, match="--read-only"):
        role_of(parse("token", "create", "--workspace", "a", "--user", "b", "--read-only",
                      "--role", "admin"))  # fmt: skip


def test_list_revoke_rotate_and_audit_take_their_arguments() -> None:
    assert parse("token", "list").workspace is None
    assert parse("token", "revoke", "0123456789abcdef").id == "0123456789abcdef"
    assert parse("token", "rotate", "0123456789abcdef", "--grace", "1h").grace == "1h"
    audit = parse("audit", "list", "--workspace", "acme", "--action", "save", "--limit", "5")
    assert (audit.workspace, audit.action, audit.limit) == ("acme", "save", 5)


def test_the_token_table_shows_metadata_never_a_secret() -> None:
    record = TokenRecord("0123456789abcdef", "acme", "bot", Role.AGENT, "ci hook", created_at=NOW)
    table = format_tokens([record])
    assert table.splitlines()[0].split() == [
        "ID", "WORKSPACE", "USER", "ROLE", "HOME", "EXPIRES", "CREATED", "NAME",
    ]  # fmt: skip
    assert "0123456789abcdef  acme" in table and "never" in table and table.endswith("ci hook")
    assert format_tokens([]) == "no tokens"


def test_the_audit_table_is_one_line_per_entry() -> None:
    who = Principal("acme", "ada", Role.MEMBER, credential="token:0123456789abcdef")
    entry = AuditEntry.of("e", who, AuditAction.FORGET, "m-1", Outcome.OK, NOW)
    lines = format_audit([entry]).splitlines()
    assert lines[1].split() == [
        "2026-11-23T12:00:00Z", "forget", "ok", "ada", "member", "token:0123456789abcdef", "m-1",
    ]  # fmt: skip
    assert format_audit([]) == "no audit entries"
