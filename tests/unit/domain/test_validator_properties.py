"""Property-based tests of the domain validators (hypothesis): whatever a caller sends, a
validator either returns a value that obeys the rules or raises InvalidInput naming fields;
it never raises anything else (OverflowError, UnicodeEncodeError, ...)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st
from memhive_domain.edges import MAX_RATIONALE_CHARS, EdgeDraft, propose_edge
from memhive_domain.errors import InvalidInput
from memhive_domain.ids import content_id
from memhive_domain.listing import ListPosition, decode_cursor, encode_cursor
from memhive_domain.memory import (
    MAX_BODY_CHARS,
    MAX_TAGS,
    TAG_PATTERN,
    Memory,
    MemoryDraft,
    create_memory,
)
from memhive_domain.principals import Principal
from memhive_domain.recall import MAX_QUERY_CHARS, SelectionRequest, plan_recall
from memhive_domain.text import has_visible_content, is_encodable

NOW = datetime(2026, 6, 1, tzinfo=UTC)
WHO = Principal("ws", "agent")
NASTY = ["\ud800", "\udfff", "\x00", "\x1b", "\u200b", "\u200d", "\ufeff", "\u2028", " ", "\t"]
# Ordinary characters mixed with the ones that broke memhive: lone surrogates, NUL, zero-width.
texts = st.text(st.one_of(st.characters(), st.sampled_from(NASTY)), max_size=60)
long_texts = st.one_of(texts, st.builds(lambda t, n: t * n, texts, st.integers(1, 200)))
offsets = st.builds(lambda m: timezone(timedelta(minutes=m)), st.integers(-1439, 1439))
moments = st.one_of(
    st.datetimes(timezones=st.just(UTC)),
    st.datetimes(timezones=offsets),
    st.datetimes(),  # naive: taken as UTC
    st.sampled_from(
        [
            datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=-12))),
            datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
            datetime.max,
            datetime.min,
        ]
    ),
)
FIELDS = {
    "kind", "body", "importance", "tags", "scope", "product_id", "visibility", "source",
    "source_ref", "expires_at", "occurred_at", "pinned",
}  # fmt: skip
# What a JSON reader may hand over for a flag or a number: its own type, or another.
json_scalars = st.one_of(
    st.booleans(), st.integers(-2, 2), st.floats(-0.5, 1.5), st.sampled_from(["false", "1", ""])
)


def _made(draft: MemoryDraft, **options) -> Memory | list:
    try:
        return create_memory(draft, memory_id="m", principal=WHO, now=NOW, **options)
    except InvalidInput as problem:
        return problem.problems


def _named(problem: InvalidInput, allowed: set[str]) -> None:
    assert problem.problems and {p.field for p in problem.problems} <= allowed
    str(problem).encode("utf-8", "replace")  # the message itself can always be rendered


@settings(max_examples=120, deadline=None)
@given(
    body=long_texts,
    tags=st.lists(texts, max_size=40),
    source_ref=st.one_of(st.none(), long_texts),
    product_id=st.one_of(st.none(), texts),
    expires_at=st.one_of(st.none(), moments),
    occurred_at=st.one_of(st.none(), moments),
    kind=st.one_of(st.sampled_from(["fact", "decision"]), texts),
    pinned=json_scalars,
    importance=st.one_of(st.none(), json_scalars),
)
def test_a_draft_becomes_a_valid_memory_or_named_problems(
    body, tags, source_ref, product_id, expires_at, occurred_at, kind, pinned, importance
) -> None:
    draft = MemoryDraft(
        kind=kind,
        body=body,
        importance=importance,
        pinned=pinned,
        tags=tags,
        source_ref=source_ref,
        product_id=product_id,
        expires_at=expires_at,
        occurred_at=occurred_at,
    )
    checked = _made(draft, read_mentions=False)  # a check alone (an import's plan)
    try:
        memory = create_memory(draft, memory_id="m", principal=WHO, now=NOW)
    except InvalidInput as problem:
        _named(problem, FIELDS)
        assert checked == problem.problems  # decided the same
        return
    assert checked == memory and checked.mentions is None and checked.names == memory.names
    assert is_encodable(memory.body) and has_visible_content(memory.body)
    assert len(memory.body) <= MAX_BODY_CHARS and memory.body == memory.body.strip()
    assert len(memory.tags) <= MAX_TAGS and all(TAG_PATTERN.match(t) for t in memory.tags)
    assert memory.source_ref is None or is_encodable(memory.source_ref)
    assert memory.expires_at is None or (memory.expires_at > NOW and memory.expires_at.tzinfo)
    assert memory.occurred_at is None or memory.occurred_at.utcoffset() == timedelta(0)
    assert memory.occurred == (memory.occurred_at or NOW)
    assert memory.pinned is pinned  # true or false as sent, never another value read as one
    assert importance is None or (
        type(importance) in (int, float) and memory.importance == importance
    )


@settings(max_examples=120, deadline=None)
@given(
    created=st.tuples(st.one_of(st.none(), moments), st.one_of(st.none(), moments)),
    occurred=st.tuples(st.one_of(st.none(), moments), st.one_of(st.none(), moments)),
)
def test_time_ranges_are_planned_in_utc_or_refused_naming_fields(created, occurred) -> None:
    selection = SelectionRequest(
        created_after=created[0],
        created_before=created[1],
        occurred_after=occurred[0],
        occurred_before=occurred[1],
    )
    try:
        plan = plan_recall("q", selection, None, principal=WHO, now=NOW)
    except InvalidInput as problem:
        _named(problem, {"created_after", "created_before", "occurred_after", "occurred_before"})
        return
    for window, ends in ((plan.filter.created, created), (plan.filter.occurred, occurred)):
        assert (window is None) == (ends == (None, None))
        if window is not None:
            bounds = [b for b in (window.after, window.before) if b is not None]
            assert all(b.utcoffset() == timedelta(0) for b in bounds)
            assert window.after is None or window.before is None or window.after < window.before


@settings(max_examples=80, deadline=None)
@given(query=long_texts, limit=st.one_of(st.none(), st.integers(-5, 50)), tags=st.lists(texts))
def test_a_recall_is_planned_or_refused_naming_fields(query, limit, tags) -> None:
    try:
        plan = plan_recall(query, SelectionRequest(tags=tags), limit, principal=WHO, now=NOW)
    except InvalidInput as problem:
        _named(problem, {"query", "max_results", "tags"})
        return
    assert is_encodable(plan.text) and has_visible_content(plan.text)
    assert len(plan.text) <= MAX_QUERY_CHARS and 1 <= plan.limit <= 20


@settings(max_examples=80, deadline=None)
@given(src=texts, dst=texts, rationale=long_texts, kind=st.sampled_from(["updates", "x"]))
def test_an_edge_is_proposed_or_refused_naming_fields(src, dst, rationale, kind) -> None:
    try:
        edge = propose_edge(EdgeDraft(src, dst, kind, rationale=rationale), created_by="u", now=NOW)
    except InvalidInput as problem:
        _named(problem, {"src_id", "dst_id", "kind", "rationale"})
        return
    assert edge.src_id != edge.dst_id and is_encodable(edge.src_id + edge.dst_id)
    assert is_encodable(edge.rationale) and len(edge.rationale) <= MAX_RATIONALE_CHARS


@settings(max_examples=120, deadline=None)
@given(cursor=st.one_of(texts, st.text(alphabet="k1.ABCabc0123456789-_=", max_size=120)))
def test_any_cursor_decodes_or_is_refused_naming_cursor(cursor) -> None:
    try:
        decode_cursor(cursor)
    except InvalidInput as problem:
        _named(problem, {"cursor"})


@settings(max_examples=80, deadline=None)
@given(moment=st.datetimes(timezones=st.just(UTC)), memory_id=st.uuids())
def test_cursors_round_trip_every_position(moment, memory_id) -> None:
    position = ListPosition(moment, str(memory_id))
    assert decode_cursor(encode_cursor(position)) == position


@settings(max_examples=100, deadline=None)
@given(workspace=texts, scope=texts, body=texts, attempt=st.integers(0, 8))
def test_content_ids_are_uuids_and_depend_on_every_part(workspace, scope, body, attempt) -> None:
    parts = (workspace, scope, body)
    memory_id = content_id(*parts, attempt)
    assert uuid.UUID(memory_id).version == 8
    assert content_id(*parts, attempt) == memory_id
    assert content_id(*parts, attempt + 1) != memory_id
    assert content_id(parts[0] + "x", *parts[1:], attempt) != memory_id
    assert content_id(*parts, attempt, NOW) not in (
        memory_id,
        content_id(*parts, attempt, NOW + timedelta(seconds=1)),
    )
