"""Key/value memory rules: keys, values, TTL and revision preconditions (hypothesis where the
input space is large). Whatever a caller sends either obeys the rules or is refused naming
the field; nothing else escapes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kv import (
    ANYTHING,
    KEY_PATTERN,
    MAX_DEPTH,
    MAX_TTL_S,
    MAX_VALUE_BYTES,
    KvAddress,
    KvEntry,
    Precondition,
    WriteRequest,
    address_of,
    parse_if_match,
    plan_kv_write,
    plan_write,
    precondition_of,
    value_json,
)
from memhive_domain.scopes import ROOT, Scope, ScopeRef

NOW = datetime(2026, 6, 1, tzinfo=UTC)
HERE = KvAddress("ws", ROOT, "plan")
NASTY = ["\ud800", "\x00", "\u200b", "/", " ", ".", ":"]
texts = st.text(st.one_of(st.characters(), st.sampled_from(NASTY)), max_size=140)
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(texts, inner, max_size=5)),
    max_leaves=40,
)


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def fields(problem: InvalidInput) -> set[str]:
    return {p.field for p in problem.problems}


@settings(max_examples=300, deadline=None)
@given(key=texts)
def test_a_key_is_either_safe_or_refused_naming_key(key: str) -> None:
    try:
        address = address_of("ws", "global", key)
    except InvalidInput as refused:
        assert fields(refused) == {"key"}
        assert not KEY_PATTERN.fullmatch(key)  # "0\n" too: no trailing newline
        return
    assert address.key == key and "/" not in key and len(key) <= 128
    assert key.isascii() and key[0].isalnum()


@settings(max_examples=200, deadline=None)
@given(scope=texts, key=texts)
def test_address_problems_name_the_fields_at_fault(scope: str, key: str) -> None:
    try:
        address_of("ws", scope, key)
    except InvalidInput as refused:
        assert fields(refused) <= {"scope", "key"} and refused.problems
        str(refused).encode("utf-8", "replace")


def test_an_address_is_a_node_of_the_tree_and_a_key() -> None:
    address = address_of("ws", "product:ios/team:mobile", "release:v2.1")
    assert address.node == ScopeRef(Scope.PRODUCT, "ios", "mobile")
    with pytest.raises(InvalidInput) as both:
        address_of("ws", "product:ios/nope", "a/b")
    assert fields(both.value) == {"scope", "key"}


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_a_value_is_stored_as_compact_json_that_reads_back_equal(value: object) -> None:
    problems: list[FieldProblem] = []
    text = value_json(value, problems)
    if problems:
        assert [p.field for p in problems] == ["value"]
        return
    assert len(text.encode("utf-8")) <= MAX_VALUE_BYTES
    entry = KvEntry(HERE, text, 1, "u", NOW)
    assert entry.value == value or value != value  # -0.0 and friends compare as themselves


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (nested(MAX_DEPTH + 1), "nests deeper"),
        ({"a": float("inf")}, "not finite"),
        ([float("nan")], "not finite"),
        ({"\ud800": 1}, "object key"),
        (["ok", "\udfff"], "not valid Unicode"),
        ({"set": {1, 2}}, "not JSON"),
        ("x" * (MAX_VALUE_BYTES - 1), "bytes as JSON"),
        ("é" * (MAX_VALUE_BYTES // 2), "bytes as JSON"),  # counted in UTF-8 bytes
    ],
)
def test_values_beyond_the_bounds_are_refused_with_the_reason(value: object, message: str) -> None:
    problems: list[FieldProblem] = []
    assert value_json(value, problems) == ""
    assert [p.field for p in problems] == ["value"] and message in problems[0].message


def test_the_bounds_themselves_are_accepted() -> None:
    problems: list[FieldProblem] = []
    assert value_json(nested(MAX_DEPTH), problems) and not problems
    assert value_json("x" * (MAX_VALUE_BYTES - 2), problems) and not problems  # quotes count
    assert value_json(nested(100_000), problems) == ""  # deep input is refused, not a crash


@settings(max_examples=200, deadline=None)
@given(ttl=st.one_of(st.none(), st.integers(-(2**70), 2**70), st.floats(), st.booleans(), texts))
def test_a_ttl_is_whole_seconds_within_bounds(ttl: object) -> None:
    try:
        write = plan_write(HERE, {"step": 2}, ttl_s=ttl, precondition=ANYTHING, now=NOW)
    except InvalidInput as refused:
        assert fields(refused) == {"ttl_s"}
        return
    if ttl is None:
        assert write.expires_at is None
    else:
        assert isinstance(ttl, int) and 1 <= ttl <= MAX_TTL_S
        assert write.expires_at == NOW + timedelta(seconds=ttl)


def test_an_entry_lives_until_its_expiry() -> None:
    entry = KvEntry(HERE, "1", 7, "u", NOW, NOW + timedelta(seconds=5))
    assert entry.is_live(NOW + timedelta(seconds=4.9))
    assert not entry.is_live(NOW + timedelta(seconds=5))
    assert KvEntry(HERE, "1", 7, "u", NOW).is_live(datetime.max.replace(tzinfo=UTC))


@settings(max_examples=200, deadline=None)
@given(header=texts)
def test_if_match_is_one_revision_or_refused_naming_the_header(header: str) -> None:
    problems: list[FieldProblem] = []
    revision = parse_if_match(header, problems)
    if problems:
        assert [p.field for p in problems] == ["If-Match"] and revision is None
    else:
        assert isinstance(revision, int) and revision >= 1


@pytest.mark.parametrize(
    ("header", "revision"), [('"12"', 12), ("12", 12), ('W/"3"', 3), (None, None)]
)
def test_if_match_takes_the_etag_this_api_sends(header: str | None, revision: int | None) -> None:
    problems: list[FieldProblem] = []
    assert parse_if_match(header, problems) == revision and not problems


def test_preconditions_must_not_disagree() -> None:
    problems: list[FieldProblem] = []
    assert precondition_of(4, None, False, problems) == Precondition(revision=4)
    assert precondition_of(None, 4, False, problems) == Precondition(revision=4)
    assert precondition_of(None, None, True, problems) == Precondition(absent=True)
    assert not problems
    precondition_of(4, 5, False, problems)
    precondition_of(4, None, True, problems)
    assert [p.field for p in problems] == ["revision", "create_only"]


@pytest.mark.parametrize(
    ("precondition", "current", "holds"),
    [
        (ANYTHING, None, True),
        (ANYTHING, 7, True),
        (Precondition(absent=True), None, True),
        (Precondition(absent=True), 7, False),
        (Precondition(present=True), None, False),
        (Precondition(present=True), 7, True),
        (Precondition(revision=7), 7, True),
        (Precondition(revision=7), 8, False),
        (Precondition(revision=7), None, False),
    ],
)
def test_what_each_precondition_accepts(
    precondition: Precondition, current: int | None, holds: bool
) -> None:
    assert precondition.holds_for(current) is holds


def test_if_match_star_asks_for_any_entry() -> None:
    write = plan_kv_write("ws", WriteRequest("global", "k", 1, if_match=" * "), NOW)
    assert write.precondition == Precondition(present=True)
    with pytest.raises(InvalidInput) as both:
        plan_kv_write("ws", WriteRequest("global", "k", 1, if_match="*", create_only=True), NOW)
    assert fields(both.value) == {"create_only"}


def test_a_value_round_trips_through_json_exactly() -> None:
    value = {"steps": ["build", "test"], "done": 1, "ratio": 0.25, "note": "ünïcode", "n": None}
    problems: list[FieldProblem] = []
    text = value_json(value, problems)
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert KvEntry(HERE, text, 1, "u", NOW).value == value
