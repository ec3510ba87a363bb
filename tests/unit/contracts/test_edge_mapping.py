"""Domain edges <-> protobuf: records round-trip exactly; commands become drafts to check."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive.v1 import edges_pb2 as pb
from memhive.v1 import memory_pb2
from memhive_contracts.codec import decode, encode
from memhive_contracts.edge_mapping import edge_draft_from_pb, edge_from_pb, edge_to_pb
from memhive_domain.edges import CreatorKind, Edge, EdgeDraft, EdgeKind, propose_edge
from memhive_domain.errors import InvalidInput

NOW = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def edge(kind: EdgeKind, creator_kind: CreatorKind, weight: float = 0.75) -> Edge:
    return Edge("a", "b", kind, weight, "agent-1", creator_kind, "the newer figure", NOW)


@pytest.mark.parametrize("kind", list(EdgeKind))
@pytest.mark.parametrize("creator_kind", list(CreatorKind))
def test_every_edge_round_trips_through_bytes(kind: EdgeKind, creator_kind: CreatorKind) -> None:
    original = edge(kind, creator_kind)

    wire = decode(encode(edge_to_pb(original)), pb.Edge)

    assert edge_from_pb(wire) == original


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_weights_on_the_bounds_survive_the_wire(weight: float) -> None:
    original = edge(EdgeKind.UPDATES, CreatorKind.USER, weight)

    assert edge_from_pb(decode(encode(edge_to_pb(original)), pb.Edge)).weight == weight


def test_enum_values_on_the_wire_are_the_named_ones() -> None:
    message = edge_to_pb(edge(EdgeKind.CONTRADICTS, CreatorKind.CLASSIFIER))

    assert (message.kind, message.creator_kind) == (
        pb.EDGE_KIND_CONTRADICTS,
        pb.CREATOR_KIND_CLASSIFIER,
    )


def test_a_stored_edge_without_a_time_is_refused() -> None:
    message = edge_to_pb(edge(EdgeKind.UPDATES, CreatorKind.AGENT))
    message.ClearField("created_at")

    with pytest.raises(ValueError, match="created_at"):
        edge_from_pb(message)


def test_a_record_carries_its_edges() -> None:
    edges = [edge(EdgeKind.UPDATES, CreatorKind.AGENT), edge(EdgeKind.RELATED_TO, CreatorKind.USER)]
    record = memory_pb2.MemoryRecord(last_command_id="cmd-1", edges=[edge_to_pb(e) for e in edges])

    back = decode(encode(record), memory_pb2.MemoryRecord)

    assert [edge_from_pb(e) for e in back.edges] == edges


def test_link_commands_and_linked_events_carry_batches() -> None:
    edges = [edge_to_pb(edge(k, CreatorKind.CLASSIFIER)) for k in EdgeKind]
    command = pb.LinkMemories(command_id="c1", workspace_id="ws", edges=edges, requested_by="lc")
    event = pb.MemoriesLinked(event_id="e1", command_id="c1", workspace_id="ws", edges=edges[:1])

    assert decode(encode(command), pb.LinkMemories) == command
    assert decode(encode(event), pb.MemoriesLinked).edges == edges[:1]


def test_a_command_edge_becomes_a_draft() -> None:
    message = pb.Edge(
        src_id="a",
        dst_id="b",
        kind=pb.EDGE_KIND_UPDATES,
        weight=0.4,
        rationale="why",
        creator_kind=pb.CREATOR_KIND_CLASSIFIER,
        created_by="ignored",
    )

    assert edge_draft_from_pb(message) == EdgeDraft(
        "a", "b", EdgeKind.UPDATES, 0.4, "why", CreatorKind.CLASSIFIER
    )


def test_a_command_edge_without_weight_or_creator_kind_takes_the_defaults() -> None:
    draft = edge_draft_from_pb(pb.Edge(src_id="a", dst_id="b", kind=pb.EDGE_KIND_RELATED_TO))

    made = propose_edge(draft, created_by="agent-1", now=NOW)

    assert (made.weight, made.creator_kind) == (1.0, CreatorKind.AGENT)


def test_an_explicit_zero_weight_in_a_command_is_kept() -> None:
    draft = edge_draft_from_pb(pb.Edge(src_id="a", dst_id="b", kind=pb.EDGE_KIND_UPDATES, weight=0))

    assert draft.weight == 0.0


@pytest.mark.parametrize("kind", [pb.EDGE_KIND_UNSPECIFIED, 42])
def test_an_unspecified_or_unknown_kind_is_refused_by_the_domain(kind: int) -> None:
    draft = edge_draft_from_pb(pb.Edge(src_id="a", dst_id="b", kind=kind))

    with pytest.raises(InvalidInput) as caught:
        propose_edge(draft, created_by="agent-1", now=NOW)

    assert [p.field for p in caught.value.problems] == ["kind"]


def test_an_unknown_creator_kind_is_refused_by_the_domain() -> None:
    draft = edge_draft_from_pb(
        pb.Edge(src_id="a", dst_id="b", kind=pb.EDGE_KIND_UPDATES, creator_kind=9)
    )

    with pytest.raises(InvalidInput) as caught:
        propose_edge(draft, created_by="agent-1", now=NOW)

    assert [p.field for p in caught.value.problems] == ["creator_kind"]
