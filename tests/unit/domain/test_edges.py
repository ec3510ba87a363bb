"""Edges: proposing, checking both ends, and keeping them unique per (src, dst, kind)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.edges import (
    MAX_RATIONALE_CHARS,
    CreatorKind,
    Edge,
    EdgeDraft,
    EdgeKind,
    add_edge,
    add_edges,
    ensure_linkable,
    propose_edge,
)
from memhive_domain.errors import InvalidInput, NotFound
from memhive_domain.memory import Memory

from tests.unit.domain.memory_factory import a_memory

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def memory(memory_id: str, workspace_id: str = "ws", **changes: object) -> Memory:
    day_ago = NOW - timedelta(days=1)
    return a_memory(
        memory_id,
        at=day_ago,
        workspace_id=workspace_id,
        importance=0.6,
        created_by="agent-1",
        **changes,
    )


def edge(src: str = "a", dst: str = "b", kind: EdgeKind = EdgeKind.UPDATES, **changes) -> Edge:
    base = Edge(src, dst, kind, 1.0, "agent-1", CreatorKind.AGENT, "", NOW)
    return replace(base, **changes)


def problem_fields(exc: InvalidInput) -> list[str]:
    return [p.field for p in exc.problems]


# propose_edge


def test_a_valid_draft_becomes_an_edge_stamped_with_creator_and_time() -> None:
    draft = EdgeDraft(
        "a", "b", "contradicts", weight=0.4, rationale="  newer figure  ", creator_kind="classifier"
    )

    made = propose_edge(draft, created_by="link-classifier", now=NOW)

    assert made == Edge(
        "a",
        "b",
        EdgeKind.CONTRADICTS,
        0.4,
        "link-classifier",
        CreatorKind.CLASSIFIER,
        "newer figure",
        NOW,
    )


def test_weight_defaults_to_certain_and_creator_to_agent() -> None:
    made = propose_edge(EdgeDraft("a", "b", EdgeKind.UPDATES), created_by="agent-1", now=NOW)

    assert (made.weight, made.creator_kind, made.rationale) == (1.0, CreatorKind.AGENT, "")


@pytest.mark.parametrize("weight", [0, 0.0, 1, 1.0, 0.5])
def test_weights_on_the_bounds_are_accepted(weight: float) -> None:
    made = propose_edge(EdgeDraft("a", "b", "related_to", weight=weight), created_by="u", now=NOW)

    assert made.weight == float(weight)


@pytest.mark.parametrize("weight", [-0.01, 1.01, float("nan"), True, "0.5"])
def test_weights_outside_zero_to_one_are_refused(weight: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        propose_edge(EdgeDraft("a", "b", "related_to", weight=weight), created_by="u", now=NOW)

    assert problem_fields(caught.value) == ["weight"]
    assert "between 0 and 1" in str(caught.value)


def test_rationale_may_be_exactly_the_maximum() -> None:
    text = "x" * MAX_RATIONALE_CHARS
    made = propose_edge(EdgeDraft("a", "b", "updates", rationale=text), created_by="u", now=NOW)

    assert made.rationale == text


def test_a_longer_rationale_is_refused_with_its_length() -> None:
    text = "x" * (MAX_RATIONALE_CHARS + 1)
    with pytest.raises(InvalidInput) as caught:
        propose_edge(EdgeDraft("a", "b", "updates", rationale=text), created_by="u", now=NOW)

    assert problem_fields(caught.value) == ["rationale"]
    assert f"{MAX_RATIONALE_CHARS + 1} characters" in str(caught.value)


def test_a_memory_cannot_link_itself() -> None:
    with pytest.raises(InvalidInput) as caught:
        propose_edge(EdgeDraft("a", " a ", "updates"), created_by="u", now=NOW)

    assert problem_fields(caught.value) == ["dst_id"]


@pytest.mark.parametrize("kind", ["supersedes", "unspecified", "", "UPDATES"])
def test_unknown_kinds_are_refused_naming_the_known_ones(kind: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        propose_edge(EdgeDraft("a", "b", kind), created_by="u", now=NOW)

    assert problem_fields(caught.value) == ["kind"]
    assert "'related_to', 'updates', 'contradicts'" in str(caught.value)


def test_an_unknown_creator_kind_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        propose_edge(EdgeDraft("a", "b", "updates", creator_kind="robot"), created_by="u", now=NOW)

    assert problem_fields(caught.value) == ["creator_kind"]


def test_every_problem_is_reported_at_once() -> None:
    draft = EdgeDraft("", "  ", "nope", weight=2.0, rationale="y" * 600, creator_kind="x")

    with pytest.raises(InvalidInput) as caught:
        propose_edge(draft, created_by=" ", now=NOW)

    assert sorted(problem_fields(caught.value)) == sorted(
        ["kind", "creator_kind", "src_id", "dst_id", "weight", "rationale", "created_by"]
    )


# ensure_linkable


def test_two_live_memories_of_the_workspace_can_be_linked() -> None:
    ensure_linkable(edge(), memory("a"), memory("b"), workspace_id="ws", now=NOW)


@pytest.mark.parametrize("missing", ["src", "dst"])
def test_a_missing_end_is_not_found(missing: str) -> None:
    src = None if missing == "src" else memory("a")
    dst = None if missing == "dst" else memory("b")

    with pytest.raises(NotFound) as caught:
        ensure_linkable(edge(), src, dst, workspace_id="ws", now=NOW)

    assert caught.value.ident == ("a" if missing == "src" else "b")


def test_an_end_in_another_workspace_is_reported_as_not_found() -> None:
    with pytest.raises(NotFound) as caught:
        ensure_linkable(edge(), memory("a"), memory("b", "other-ws"), workspace_id="ws", now=NOW)

    assert caught.value.ident == "b"


def test_a_record_under_the_wrong_id_is_not_taken_for_the_end() -> None:
    with pytest.raises(NotFound):
        ensure_linkable(edge(), memory("a"), memory("c"), workspace_id="ws", now=NOW)


def test_forgotten_and_expired_ends_are_refused_together() -> None:
    forgotten = memory("a", forgotten=True, forgotten_at=NOW)
    expired = memory("b", expires_at=NOW)

    with pytest.raises(InvalidInput) as caught:
        ensure_linkable(edge(), forgotten, expired, workspace_id="ws", now=NOW)

    assert problem_fields(caught.value) == ["src_id", "dst_id"]
    assert "forgotten" in str(caught.value) and "expired" in str(caught.value)


def test_an_end_expiring_later_is_still_linkable() -> None:
    later = memory("b", expires_at=NOW + timedelta(seconds=1))

    ensure_linkable(edge(), memory("a"), later, workspace_id="ws", now=NOW)


# add_edge


def test_a_new_edge_is_appended() -> None:
    first = edge("a", "b")
    second = edge("c", "a")

    assert add_edge((first,), second) == (first, second)


def test_the_same_edge_again_returns_the_very_same_tuple() -> None:
    existing = (edge("a", "b"), edge("a", "c"))
    again = edge("a", "b", created_by="someone-else", created_at=NOW + timedelta(hours=1))

    assert add_edge(existing, again) is existing


def test_a_changed_weight_or_rationale_refreshes_only_those_in_place() -> None:
    original = edge("a", "b", weight=0.5, rationale="old")
    existing = (original, edge("a", "c"))
    proposal = edge("a", "b", weight=0.9, rationale="new", created_by="other", created_at=NOW)

    updated = add_edge(existing, proposal)

    assert updated == (replace(original, weight=0.9, rationale="new"), existing[1])
    assert updated[0].created_by == original.created_by


@pytest.mark.parametrize(
    "other", [edge("b", "a"), edge("a", "b", EdgeKind.CONTRADICTS), edge("a", "c")]
)
def test_uniqueness_is_per_source_target_and_kind(other: Edge) -> None:
    existing = (edge("a", "b"),)

    assert add_edge(existing, other) == (existing[0], other)


def test_a_classifier_guess_yields_to_an_authors_edge_on_the_pair_either_way() -> None:
    """The classifier may see a new memory before the `updates` its save links: the
    author's word stands alone whichever edge came first."""
    guess = edge("a", "b", EdgeKind.RELATED_TO, creator_kind=CreatorKind.CLASSIFIER)
    authored = edge("a", "b", EdgeKind.UPDATES)
    elsewhere = edge("a", "c", EdgeKind.RELATED_TO, creator_kind=CreatorKind.CLASSIFIER)

    assert add_edge((guess, elsewhere), authored) == (elsewhere, authored)
    existing = (authored,)
    assert add_edge(existing, replace(guess, src_id="b", dst_id="a")) is existing
    assert add_edge((elsewhere,), guess) == (elsewhere, guess)  # no author on the pair


def test_folding_several_edges_is_adding_them_one_by_one() -> None:
    guess = edge("a", "b", EdgeKind.RELATED_TO, creator_kind=CreatorKind.CLASSIFIER)
    proposals = [edge("a", "c"), guess, edge("a", "b"), edge("a", "c", weight=0.4)]
    existing = (edge("d", "a"),)

    one_by_one = existing
    for proposal in proposals:
        one_by_one = add_edge(one_by_one, proposal)

    assert add_edges(existing, proposals) == one_by_one
    assert add_edges(one_by_one, proposals[2:]) is one_by_one  # nothing new: the same tuple
    assert add_edges(existing, []) is existing


def test_an_edge_knows_its_key_and_ends() -> None:
    e = edge("a", "b", EdgeKind.CONTRADICTS)

    assert e.key == ("a", "b", EdgeKind.CONTRADICTS)
    assert (e.touches("a"), e.touches("b"), e.touches("c")) == (True, True, False)
    assert (e.other_end("a"), e.other_end("b")) == ("b", "a")
