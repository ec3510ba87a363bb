from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.principals import Role
from memhive_domain.tokens import (
    TokenDraft,
    expiry,
    format_token,
    grace_period,
    is_token_id,
    parse_duration,
    parse_token,
)

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_a_token_carries_its_prefix_and_id_and_parses_back() -> None:
    token = format_token("0123456789abcdef", "-secret_with_underscores")

    assert token.startswith("mh_0123456789abcdef_")
    assert parse_token(token) == ("0123456789abcdef", "-secret_with_underscores")


@pytest.mark.parametrize(
    "token",
    ["", "legacy-token", "mh_", "mh_short_x", "mh_0123456789abcdef", "MH_0123456789abcdef_x"],
)
def test_anything_else_is_not_a_memhive_token(token: str) -> None:
    assert parse_token(token) is None


def test_ids_are_new_hex_ids_or_legacy_digests() -> None:
    assert is_token_id("0123456789abcdef") and is_token_id("a" * 64)
    assert not is_token_id("../etc") and not is_token_id("A" * 16)


@pytest.mark.parametrize(
    ("text", "delta"),
    [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)), ("2w", timedelta(weeks=2))],
)
def test_durations(text: str, delta: timedelta) -> None:
    assert parse_duration(text) == delta
    assert expiry(NOW, expires_in=text) == NOW + delta


@pytest.mark.parametrize("text", ["", "30", "d", "-1d", "1y", "1.5h"])
def test_bad_durations_name_the_field(text: str) -> None:
    with pytest.raises(InvalidInput, match="expires_in"):
        parse_duration(text)


def test_expiry_takes_one_of_in_or_at() -> None:
    assert expiry(NOW) is None
    assert expiry(NOW, expires_at=NOW + timedelta(days=1)) == NOW + timedelta(days=1)
    with pytest.raises(InvalidInput, match="not both"):
        expiry(NOW, "1d", NOW)


def test_grace_is_bounded() -> None:
    assert grace_period(None) == timedelta(0)
    assert grace_period("1h") == timedelta(hours=1)
    with pytest.raises(InvalidInput, match="grace"):
        grace_period("31d")


def test_a_draft_reports_every_problem_at_once() -> None:
    draft = TokenDraft(
        "Bad WS",
        "",
        Role.AGENT,
        name="x" * 81,
        home="",
        acting_for="a b",
        expires_at=NOW - timedelta(seconds=1),
    )
    fields = {p.field for p in draft.problems(NOW)}
    assert fields == {"workspace", "user", "name", "home", "acting_for", "expires_at"}


@pytest.mark.parametrize(
    ("home", "valid"),
    [
        ("global", True),
        ("product:ios", True),
        ("product:ios/team:mobile/agent:bob", True),
        ("team:ops", True),
        ("product:ios//team:x", False),
        ("agent:bob/team:x", False),
        ("bob", False),
    ],
)
def test_a_home_is_a_scope_tree_path(home: str, valid: bool) -> None:
    draft = TokenDraft("ws", "bot", Role.AGENT, home=home)
    assert ("home" not in {p.field for p in draft.problems(NOW)}) is valid


def test_a_record_expires_and_its_principal_names_the_token() -> None:
    draft = TokenDraft("ws", "bot", Role.AGENT, expires_at=NOW + timedelta(hours=1))
    record = draft.record("0123456789abcdef", "root", NOW)

    assert record.live_at(NOW) and not record.live_at(NOW + timedelta(hours=1))
    assert record.principal().credential == "token:0123456789abcdef"
    assert record.principal().role is Role.AGENT
    assert record.expiring(NOW + timedelta(hours=2)).expires_at == NOW + timedelta(hours=1)
    assert record.expiring(NOW).expires_at == NOW


def test_a_lifetime_beyond_ten_years_is_refused_not_overflowed() -> None:
    """`999999w` is past year 9999: a 422 naming expires_in, never an OverflowError."""
    with pytest.raises(InvalidInput, match="expires_in: more than 0, at most 10 years"):
        expiry(NOW, "999999w")
    assert expiry(NOW, "3650d") == NOW + timedelta(days=3650)
