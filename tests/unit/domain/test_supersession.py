"""Recall semantics of edges: stale memories never come back without what replaced them."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.edges import CreatorKind, Edge, EdgeKind
from memhive_domain.memory import Memory
from memhive_domain.ranking import RankedMemory
from memhive_domain.supersession import (
    MAX_SUCCESSOR_ROUNDS,
    ResolvedMemory,
    resolve_supersession,
    successor_ids_to_fetch,
    superseded_ids,
    superseding_edges,
)

from tests.unit.domain.memory_factory import a_memory

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
UPDATES, CONTRADICTS, RELATED = EdgeKind.UPDATES, EdgeKind.CONTRADICTS, EdgeKind.RELATED_TO


def mem(memory_id: str, age_days: float, **changes: object) -> Memory:
    """A live memory created `age_days` before NOW (bigger is older)."""
    created = NOW - timedelta(days=age_days)
    return a_memory(memory_id, at=created, importance=0.6, created_by="agent-1", **changes)


def forgotten(memory: Memory) -> Memory:
    return replace(memory, forgotten=True, forgotten_at=NOW)


def expired(memory: Memory) -> Memory:
    return replace(memory, expires_at=NOW - timedelta(seconds=1))


def ranked(memory: Memory, score: float) -> RankedMemory:
    return RankedMemory(memory=memory, score=score, fused_score=score, ranks={"dense": 1})


def link(src: str, kind: EdgeKind, dst: str) -> Edge:
    return Edge(src, dst, kind, 1.0, "agent-1", CreatorKind.AGENT, "", NOW - timedelta(hours=1))


def edges_of(*edges: Edge) -> dict[str, list[Edge]]:
    """As records keep them: every edge listed under both of its ends."""
    by_end: dict[str, list[Edge]] = {}
    for e in edges:
        by_end.setdefault(e.src_id, []).append(e)
        by_end.setdefault(e.dst_id, []).append(e)
    return by_end


def everyone(memory: Memory) -> bool:
    return True


def resolve(
    candidates: list[RankedMemory],
    edges: Mapping[str, list[Edge]],
    known: Iterable[Memory] = (),
    *,
    is_visible: Callable[[Memory], bool] = everyone,
    include_superseded: bool = False,
) -> list[tuple[str, float, tuple[str, ...], str | None]]:
    resolved = resolve_supersession(
        candidates,
        edges,
        {m.id: m for m in known},
        now=NOW,
        is_visible=is_visible,
        include_superseded=include_superseded,
    )
    return [(r.memory.id, r.score, r.replaces, r.superseded_by) for r in resolved]


A_OLD, B_MID, C_NEW, D_NEWEST = mem("a", 30), mem("b", 20), mem("c", 10), mem("d", 1)


# Nothing to resolve


def test_without_edges_the_candidates_come_back_as_ranked() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(B_MID, 0.5)]

    assert resolve(candidates, {}) == [("a", 0.9, (), None), ("b", 0.5, (), None)]


def test_related_to_edges_change_nothing() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(B_MID, 0.5)]
    edges = edges_of(link("b", RELATED, "a"), link("a", RELATED, "b"))

    assert resolve(candidates, edges) == [("a", 0.9, (), None), ("b", 0.5, (), None)]


def test_the_result_carries_the_memory_records_themselves() -> None:
    resolved = resolve_supersession(
        [ranked(A_OLD, 0.4)],
        edges_of(link("c", UPDATES, "a")),
        {"c": C_NEW},
        now=NOW,
        is_visible=everyone,
    )

    assert resolved == [ResolvedMemory(C_NEW, 0.4, replaces=("a",))]


# updates


def test_when_both_match_the_updated_memory_is_dropped() -> None:
    candidates = [ranked(B_MID, 0.9), ranked(A_OLD, 0.5)]

    assert resolve(candidates, edges_of(link("b", UPDATES, "a"))) == [("b", 0.9, ("a",), None)]


def test_a_head_that_ranked_lower_takes_the_stale_memory_s_score() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(D_NEWEST, 0.7), ranked(B_MID, 0.3)]

    result = resolve(candidates, edges_of(link("b", UPDATES, "a")))

    assert result == [("b", 0.9, ("a",), None), ("d", 0.7, (), None)]


def test_updates_follow_the_edge_not_the_age() -> None:
    # An agent may declare an older note the current one; the edge is the statement.
    candidates = [ranked(C_NEW, 0.9), ranked(A_OLD, 0.5)]

    assert resolve(candidates, edges_of(link("a", UPDATES, "c"))) == [("a", 0.9, ("c",), None)]


def test_when_only_the_stale_memory_matched_its_successor_stands_in() -> None:
    candidates = [ranked(D_NEWEST, 0.8), ranked(A_OLD, 0.6)]

    result = resolve(candidates, edges_of(link("b", UPDATES, "a")), known=[B_MID])

    assert result == [("d", 0.8, (), None), ("b", 0.6, ("a",), None)]


# contradicts


@pytest.mark.parametrize(
    "edge",
    [link("c", CONTRADICTS, "a"), link("a", CONTRADICTS, "c")],
    ids=["newer-src", "older-src"],
)
def test_a_contradiction_keeps_the_newer_whichever_way_it_points(edge: Edge) -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(C_NEW, 0.4)]

    assert resolve(candidates, edges_of(edge)) == [("c", 0.9, ("a",), None)]


@pytest.mark.parametrize("edge", [link("c", CONTRADICTS, "a"), link("a", CONTRADICTS, "c")])
def test_a_newer_contradiction_stands_in_for_an_older_match(edge: Edge) -> None:
    assert resolve([ranked(A_OLD, 0.5)], edges_of(edge), known=[C_NEW]) == [
        ("c", 0.5, ("a",), None)
    ]


def test_an_older_contradiction_does_not_displace_a_newer_match() -> None:
    edges = edges_of(link("a", CONTRADICTS, "c"))

    assert resolve([ranked(C_NEW, 0.5)], edges, known=[A_OLD]) == [("c", 0.5, (), None)]


def test_a_contradiction_between_memories_of_the_same_moment_is_settled_by_id() -> None:
    twin_x, twin_y = mem("x", 5), mem("y", 5)
    candidates = [ranked(twin_y, 0.9), ranked(twin_x, 0.8)]

    for edge in (link("x", CONTRADICTS, "y"), link("y", CONTRADICTS, "x")):
        assert resolve(candidates, edges_of(edge)) == [("y", 0.9, ("x",), None)]


def test_contradictions_in_both_directions_count_once() -> None:
    edges = edges_of(link("a", CONTRADICTS, "c"), link("c", CONTRADICTS, "a"))

    assert resolve([ranked(A_OLD, 0.9), ranked(C_NEW, 0.1)], edges) == [("c", 0.9, ("a",), None)]


# chains


CHAIN = edges_of(link("b", UPDATES, "a"), link("c", UPDATES, "b"))


def test_a_chain_resolves_to_its_head_from_the_oldest_link() -> None:
    assert resolve([ranked(A_OLD, 0.7)], CHAIN, known=[B_MID, C_NEW]) == [("c", 0.7, ("a",), None)]


def test_every_stale_link_of_a_chain_maps_to_one_head_listed_once() -> None:
    candidates = [ranked(B_MID, 0.6), ranked(A_OLD, 0.9)]

    result = resolve(candidates, CHAIN, known=[C_NEW])

    assert result == [("c", 0.9, ("b", "a"), None)]


def test_a_chain_whose_head_also_matched_returns_the_head_once() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(C_NEW, 0.5), ranked(B_MID, 0.2)]

    assert resolve(candidates, CHAIN) == [("c", 0.9, ("a", "b"), None)]


def test_a_chain_mixing_updates_and_contradictions_reaches_the_head() -> None:
    edges = edges_of(
        link("a", CONTRADICTS, "b"), link("c", UPDATES, "b"), link("d", CONTRADICTS, "c")
    )

    result = resolve([ranked(A_OLD, 0.5)], edges, known=[B_MID, C_NEW, D_NEWEST])

    assert result == [("d", 0.5, ("a",), None)]


def test_a_memory_updated_twice_resolves_to_the_newer_update() -> None:
    edges = edges_of(link("c", UPDATES, "a"), link("d", UPDATES, "a"))

    assert resolve([ranked(A_OLD, 0.5)], edges, known=[C_NEW, D_NEWEST]) == [
        ("d", 0.5, ("a",), None)
    ]


def test_a_sibling_update_that_also_matched_stays_itself() -> None:
    edges = edges_of(link("c", UPDATES, "a"), link("d", UPDATES, "a"))
    candidates = [ranked(C_NEW, 0.9), ranked(A_OLD, 0.5)]

    result = resolve(candidates, edges, known=[D_NEWEST])

    assert result == [("c", 0.9, (), None), ("d", 0.5, ("a",), None)]


# cycles


def test_a_two_cycle_terminates_at_its_newer_member() -> None:
    edges = edges_of(link("a", UPDATES, "c"), link("c", UPDATES, "a"))

    assert resolve([ranked(A_OLD, 0.9), ranked(C_NEW, 0.4)], edges) == [("c", 0.9, ("a",), None)]
    assert resolve([ranked(A_OLD, 0.9)], edges, known=[C_NEW]) == [("c", 0.9, ("a",), None)]


def test_a_three_cycle_terminates_at_its_newest_member_from_any_entry() -> None:
    edges = edges_of(link("a", UPDATES, "b"), link("b", UPDATES, "c"), link("c", UPDATES, "a"))
    everything = [A_OLD, B_MID, C_NEW]

    for entry in everything:
        others = [m for m in everything if m is not entry]
        assert resolve([ranked(entry, 0.5)], edges, known=others) == [
            ("c", 0.5, () if entry is C_NEW else (entry.id,), None)
        ]


def test_a_cycle_with_a_way_out_resolves_beyond_the_cycle() -> None:
    edges = edges_of(link("a", UPDATES, "c"), link("c", UPDATES, "a"), link("d", UPDATES, "c"))

    assert resolve([ranked(A_OLD, 0.5)], edges, known=[C_NEW, D_NEWEST]) == [
        ("d", 0.5, ("a",), None)
    ]


def test_a_self_edge_is_ignored() -> None:
    assert resolve([ranked(A_OLD, 0.5)], edges_of(link("a", UPDATES, "a"))) == [
        ("a", 0.5, (), None)
    ]


# forgotten, expired and unknown ends


@pytest.mark.parametrize("gone", [forgotten, expired], ids=["forgotten", "expired"])
def test_an_update_from_a_memory_that_is_gone_stops_counting(gone) -> None:
    edges = edges_of(link("c", UPDATES, "a"))

    assert resolve([ranked(A_OLD, 0.5)], edges, known=[gone(C_NEW)]) == [("a", 0.5, (), None)]


@pytest.mark.parametrize("gone", [forgotten, expired], ids=["forgotten", "expired"])
def test_a_contradiction_from_a_memory_that_is_gone_stops_counting(gone) -> None:
    edges = edges_of(link("c", CONTRADICTS, "a"))

    assert resolve([ranked(A_OLD, 0.5)], edges, known=[gone(C_NEW)]) == [("a", 0.5, (), None)]


def test_a_forgotten_middle_breaks_the_chain() -> None:
    result = resolve([ranked(A_OLD, 0.5)], CHAIN, known=[forgotten(B_MID), C_NEW])

    assert result == [("a", 0.5, (), None)]


def test_a_forgotten_head_leaves_the_last_live_link_current() -> None:
    result = resolve([ranked(A_OLD, 0.5)], CHAIN, known=[B_MID, expired(C_NEW)])

    assert result == [("b", 0.5, ("a",), None)]


def test_an_edge_to_a_memory_never_fetched_does_not_count() -> None:
    assert resolve([ranked(A_OLD, 0.5)], edges_of(link("c", UPDATES, "a"))) == [
        ("a", 0.5, (), None)
    ]


def test_edges_stored_at_one_end_only_still_count() -> None:
    one_sided = {"a": [link("c", UPDATES, "a")]}

    assert resolve([ranked(A_OLD, 0.5)], one_sided, known=[C_NEW]) == [("c", 0.5, ("a",), None)]


# visibility


def not_c(memory: Memory) -> bool:
    return memory.id != "c"


def test_a_chain_ends_at_the_last_successor_the_reader_sees() -> None:
    candidates = [ranked(D_NEWEST, 0.9), ranked(A_OLD, 0.5)]

    result = resolve(candidates, CHAIN, known=[B_MID, C_NEW], is_visible=not_c)

    assert result == [("d", 0.9, (), None), ("b", 0.5, ("a",), None)]


def test_a_reader_never_loses_a_memory_to_a_successor_it_cannot_see() -> None:
    """Issue 24: an agent's private successor of a shared memory hid it from everyone."""
    hidden = edges_of(link("c", UPDATES, "a"))
    for include_superseded in (False, True):
        result = resolve(
            [ranked(A_OLD, 0.5)],
            hidden,
            known=[C_NEW],
            is_visible=not_c,
            include_superseded=include_superseded,
        )
        assert result == [("a", 0.5, (), None)]


def test_a_hidden_contradiction_leaves_the_older_memory_current() -> None:
    hidden = edges_of(link("a", CONTRADICTS, "c"))

    assert resolve([ranked(A_OLD, 0.5)], hidden, known=[C_NEW], is_visible=not_c) == [
        ("a", 0.5, (), None)
    ]


def test_nothing_is_fetched_past_a_successor_the_reader_cannot_see() -> None:
    candidates = [ranked(A_OLD, 0.5)]

    assert successor_ids_to_fetch(candidates, CHAIN, {"b": B_MID}, lambda m: m.id != "b") == set()
    assert successor_ids_to_fetch(candidates, CHAIN, {"b": B_MID}) == {"c"}


def test_candidates_are_not_second_guessed_for_visibility() -> None:
    candidates = [ranked(C_NEW, 0.9), ranked(A_OLD, 0.5)]

    assert resolve(candidates, CHAIN, known=[B_MID], is_visible=not_c) == [("c", 0.9, ("a",), None)]


# include_superseded


def test_include_superseded_returns_history_marked_with_its_head() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(C_NEW, 0.5)]

    result = resolve(candidates, CHAIN, known=[B_MID], include_superseded=True)

    assert result == [("c", 0.9, ("a",), None), ("a", 0.9, (), "c")]


def test_include_superseded_keeps_the_successor_beside_a_lone_stale_match() -> None:
    result = resolve(
        [ranked(B_MID, 0.8), ranked(A_OLD, 0.6)], CHAIN, known=[C_NEW], include_superseded=True
    )

    assert result == [("c", 0.8, ("b", "a"), None), ("b", 0.8, (), "c"), ("a", 0.6, (), "c")]


def test_include_superseded_leaves_current_memories_unmarked() -> None:
    candidates = [ranked(A_OLD, 0.9), ranked(D_NEWEST, 0.5)]

    result = resolve(candidates, {}, include_superseded=True)

    assert result == [("a", 0.9, (), None), ("d", 0.5, (), None)]


# ordering


def test_equal_scores_order_newest_first_then_by_id() -> None:
    twin_x, twin_y = mem("x", 5), mem("y", 5)
    candidates = [ranked(m, 0.5) for m in (A_OLD, twin_y, D_NEWEST, twin_x)]

    assert [r[0] for r in resolve(candidates, {})] == ["d", "x", "y", "a"]


def test_the_result_does_not_depend_on_the_order_of_inputs() -> None:
    memories = [mem(f"m{i}", i) for i in range(8)]
    edges = [link("m1", UPDATES, "m3"), link("m0", CONTRADICTS, "m5"), link("m2", UPDATES, "m7")]
    candidates = [ranked(m, round(0.1 * (i % 3), 1)) for i, m in enumerate(memories)]
    expected = resolve(candidates, edges_of(*edges), include_superseded=True)
    shuffler = random.Random(7)

    for _ in range(20):
        shuffler.shuffle(candidates)
        shuffler.shuffle(edges)
        assert resolve(candidates, edges_of(*edges), include_superseded=True) == expected


# successor_ids_to_fetch


def to_fetch(candidates: list[RankedMemory], edges, known: Iterable[Memory] = ()) -> set[str]:
    return successor_ids_to_fetch(candidates, edges, {m.id: m for m in known})


def test_updaters_and_contradictors_of_candidates_are_fetched() -> None:
    edges = edges_of(
        link("x", UPDATES, "a"), link("a", CONTRADICTS, "y"), link("z", CONTRADICTS, "a")
    )

    assert to_fetch([ranked(A_OLD, 0.5)], edges) == {"x", "y", "z"}


def test_what_a_candidate_updates_or_merely_relates_to_is_not_fetched() -> None:
    edges = edges_of(link("a", UPDATES, "x"), link("a", RELATED, "y"), link("z", RELATED, "a"))

    assert to_fetch([ranked(A_OLD, 0.5)], edges) == set()


def test_each_round_reaches_one_step_further_along_a_chain() -> None:
    candidates = [ranked(A_OLD, 0.5)]

    assert to_fetch(candidates, CHAIN) == {"b"}
    assert to_fetch(candidates, CHAIN, known=[B_MID]) == {"c"}
    assert to_fetch(candidates, CHAIN, known=[B_MID, C_NEW]) == set()


def test_nothing_is_fetched_beyond_an_older_contradictor() -> None:
    edges = edges_of(link("a", CONTRADICTS, "c"), link("x", UPDATES, "a"))

    assert to_fetch([ranked(C_NEW, 0.5)], edges, known=[A_OLD]) == set()


def test_nothing_is_fetched_beyond_a_forgotten_successor() -> None:
    assert to_fetch([ranked(A_OLD, 0.5)], CHAIN, known=[forgotten(B_MID)]) == set()


def test_a_cycle_stops_asking_once_every_member_is_known() -> None:
    edges = edges_of(link("a", UPDATES, "b"), link("b", UPDATES, "c"), link("c", UPDATES, "a"))

    assert to_fetch([ranked(A_OLD, 0.5)], edges, known=[B_MID, C_NEW]) == set()


def test_a_use_case_loop_over_a_store_ends_at_the_head() -> None:
    chain = [mem(f"v{i}", 50 - i) for i in range(5)]  # v4 is the newest version
    store = {m.id: m for m in chain}
    edges = edges_of(*(link(f"v{i + 1}", UPDATES, f"v{i}") for i in range(4)))
    candidates, known, rounds = [ranked(chain[0], 0.5)], {}, 0

    while wanted := successor_ids_to_fetch(candidates, edges, known):
        assert rounds < MAX_SUCCESSOR_ROUNDS
        known |= {i: store[i] for i in wanted}
        rounds += 1

    assert rounds == 4
    assert resolve(candidates, edges, known.values()) == [("v4", 0.5, ("v0",), None)]


# superseded_ids


def test_superseded_ids_names_every_memory_a_live_successor_replaces() -> None:
    edges = edges_of(link("b", UPDATES, "a"), link("c", CONTRADICTS, "b"), link("d", RELATED, "c"))

    assert superseded_ids([A_OLD, B_MID, C_NEW, D_NEWEST], edges, NOW) == {"a", "b"}


def test_superseded_ids_ignores_successors_that_are_gone_or_absent() -> None:
    edges = edges_of(link("b", UPDATES, "a"), link("c", UPDATES, "d"))

    assert superseded_ids([A_OLD, forgotten(B_MID), D_NEWEST], edges, NOW) == set()


def test_superseded_ids_in_a_cycle_keeps_only_the_newest() -> None:
    edges = edges_of(link("a", UPDATES, "b"), link("b", UPDATES, "c"), link("c", UPDATES, "a"))

    assert superseded_ids([A_OLD, B_MID, C_NEW], edges, NOW) == {"a", "b"}


def test_only_updates_and_contradicts_edges_can_supersede() -> None:
    edges = [link("b", RELATED, "a"), link("b", UPDATES, "a"), link("c", CONTRADICTS, "a")]
    assert superseding_edges(edges) == tuple(edges[1:])
    assert superseding_edges([link("b", RELATED, "a")]) == ()
