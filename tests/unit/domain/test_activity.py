"""What of the log's activity a caller may see: the same view recall applies, the event's
memory or the record, gone memories without their text, a recall's query for its author."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhive_domain.activity import (
    ActivityEvent,
    ActivityKind,
    ActivityPosition,
    decode_cursor,
    encode_cursor,
    plan_activity,
    shown,
)
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.memory import Memory, forget
from memhive_domain.principals import Principal, Role
from memhive_domain.scopes import Scope, Visibility

from tests.unit.domain.memory_factory import a_memory

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MEMBER = Principal("ws", "ada")
VIEWER = Principal("ws", "guest", Role.VIEWER)
BOB = Principal("ws", "bob", Role.AGENT, "product:ios/agent:bob")
EVE = Principal("ws", "eve", Role.AGENT, "product:ios/agent:eve")


def memory(memory_id: str, **changes: object) -> Memory:
    return a_memory(memory_id, at=NOW - timedelta(days=1), **changes)


PUBLIC = memory("pub", visibility=Visibility.PUBLIC, body="The API lives at /docs")
PRIVATE = memory("priv", body="The vault code is 1234")
BOBS = memory("bobs", scope=Scope.PRODUCT, product_id="ios", agent_id="bob", body="bob's notes")
IOS = memory("ios", scope=Scope.PRODUCT, product_id="ios", body="iOS ships on Fridays")
RECORDS = {m.id: m for m in (PUBLIC, PRIVATE, BOBS, IOS)}


def saved(m: Memory, actor: str = "ada") -> ActivityEvent:
    return ActivityEvent(ActivityKind.SAVED, NOW, actor, memory=m)


def recalled(*ids: str, actor: str = "ada", query: str = "vault code?") -> ActivityEvent:
    return ActivityEvent(ActivityKind.RECALLED, NOW, actor, memory_ids=ids, query=query)


def linked(src: str, dst: str) -> ActivityEvent:
    edge = Edge(src, dst, EdgeKind.RELATED_TO, 1.0, "ada", CreatorKind.AGENT, "", NOW)
    return ActivityEvent(ActivityKind.LINKED, NOW, "ada", edges=(edge,))


def seen(event: ActivityEvent, who: Principal, records=RECORDS, **query: object):
    planned = plan_activity(
        who,
        scope=query.get("scope"),
        kinds=query.get("kinds"),
        since=None,
        limit=20,
        cursor=None,
    )
    return shown(event, records, planned, who, NOW)


@pytest.mark.parametrize(
    ("who", "memory_", "visible"),
    [
        (MEMBER, PRIVATE, True),
        (VIEWER, PRIVATE, False),  # private: members only
        (VIEWER, PUBLIC, True),
        (MEMBER, BOBS, False),  # an agent's LOCAL node: that agent (and admins) only
        (EVE, BOBS, False),  # not a sibling agent either
        (BOB, BOBS, True),
        (Principal("ws", "root", Role.ADMIN), BOBS, True),
        (Principal("ws2", "ada"), PRIVATE, False),  # another workspace
    ],
)
def test_an_entry_is_shown_only_to_who_may_read_its_memory(
    who: Principal, memory_: Memory, visible: bool
) -> None:
    for kind in (ActivityKind.SAVED, ActivityKind.UPDATED, ActivityKind.FORGOTTEN):
        event = ActivityEvent(kind, NOW, "ada", memory=memory_)
        assert (seen(event, who) is not None) is visible
    assert (seen(recalled(memory_.id), who) is not None) is visible


def test_a_memory_made_private_later_disappears_for_viewers() -> None:
    now_private = RECORDS | {"pub": replace(PUBLIC, visibility=Visibility.PRIVATE)}
    assert seen(saved(PUBLIC), VIEWER, now_private) is None
    assert seen(recalled("pub"), VIEWER, now_private) is None
    assert seen(saved(PUBLIC), MEMBER, now_private) is not None


def test_a_gone_memory_keeps_its_entry_but_not_its_text() -> None:
    gone = forget(PRIVATE, NOW)
    records = RECORDS | {"priv": gone}
    entry = seen(saved(PRIVATE), MEMBER, records)
    assert entry is not None and entry.memories[0].summary is None
    forgotten = ActivityEvent(ActivityKind.FORGOTTEN, NOW, "ada", memory=gone, reason="wrong")
    entry = seen(forgotten, MEMBER, records)
    assert entry.memories[0].summary is None and entry.reason == "wrong"
    expired = RECORDS | {"priv": replace(PRIVATE, expires_at=NOW - timedelta(seconds=1))}
    assert seen(saved(PRIVATE), MEMBER, expired).memories[0].summary is None
    assert seen(saved(PRIVATE), MEMBER).memories[0].summary == "The vault code is 1234"


def test_a_recall_shows_only_readable_hits_and_its_query_to_its_author_only() -> None:
    event = recalled("priv", "bobs", "pub", actor="ada")
    mine = seen(event, MEMBER)
    assert [m.id for m in mine.memories] == ["priv", "pub"] and mine.query == "vault code?"
    viewer = seen(event, VIEWER)
    assert [m.id for m in viewer.memories] == ["pub"] and viewer.query is None
    assert seen(recalled("bobs", actor="bob"), EVE) is None
    assert seen(recalled("bobs", actor="bob"), BOB).query == "vault code?"


def test_a_link_is_shown_only_when_both_ends_are_readable() -> None:
    assert seen(linked("priv", "pub"), MEMBER).edges[0].dst_id == "pub"
    assert seen(linked("priv", "pub"), VIEWER) is None
    assert seen(linked("bobs", "ios"), EVE) is None
    entry = seen(linked("bobs", "ios"), BOB)
    assert {m.id for m in entry.memories} == {"bobs", "ios"}


def test_a_node_narrows_to_entries_touching_it_and_kinds_filter() -> None:
    assert seen(saved(IOS), MEMBER, scope="product:ios") is not None
    assert seen(saved(PRIVATE), MEMBER, scope="product:ios") is None
    assert seen(linked("priv", "ios"), MEMBER, scope="product:ios") is not None
    assert seen(saved(IOS), MEMBER, kinds=["recalled"]) is None
    with pytest.raises(NotAllowed):
        seen(saved(BOBS), EVE, scope="product:ios/agent:bob")


def test_bad_queries_name_every_field() -> None:
    with pytest.raises(InvalidInput) as refused:
        plan_activity(
            MEMBER,
            scope="nowhere",
            kinds=["saved", "shouted"],
            since=datetime(2026, 1, 1),
            limit=0,
            cursor="x",
        )
    assert {p.field for p in refused.value.problems} == {
        "scope",
        "kind",
        "since",
        "limit",
        "cursor",
    }


@settings(max_examples=200, deadline=None)
@given(
    log=st.one_of(st.none(), st.integers(0, 2**63 - 1)),
    recalls=st.one_of(st.none(), st.integers(0, 2**63 - 1)),
)
def test_a_cursor_round_trips(log: int | None, recalls: int | None) -> None:
    position = ActivityPosition(log, recalls)
    problems: list[FieldProblem] = []
    assert decode_cursor(encode_cursor(position), problems) == position and not problems


@settings(max_examples=300, deadline=None)
@given(cursor=st.text(max_size=80))
def test_anything_else_is_refused_naming_cursor(cursor: str) -> None:
    problems: list[FieldProblem] = []
    position = decode_cursor(cursor, problems)
    assert [p.field for p in problems] in ([], ["cursor"])
    assert all(b is None or 0 <= b < 2**63 for b in (position.log, position.recalls))
