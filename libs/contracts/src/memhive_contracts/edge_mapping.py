"""Mapping between domain edges and their protobuf shape. Only edges of the system call it."""

from __future__ import annotations

from memhive.v1 import edges_pb2 as pb
from memhive_domain.edges import CreatorKind, Edge, EdgeDraft, EdgeKind

from memhive_contracts.mapping import from_timestamp, to_timestamp

_KIND = {k: getattr(pb, f"EDGE_KIND_{k.name}") for k in EdgeKind}
_CREATOR = {c: getattr(pb, f"CREATOR_KIND_{c.name}") for c in CreatorKind}
_KIND_BACK = {v: k for k, v in _KIND.items()}
_CREATOR_BACK = {v: k for k, v in _CREATOR.items()}


def edge_to_pb(edge: Edge) -> pb.Edge:
    message = pb.Edge(
        src_id=edge.src_id,
        dst_id=edge.dst_id,
        kind=_KIND[edge.kind],
        weight=edge.weight,
        created_by=edge.created_by,
        creator_kind=_CREATOR[edge.creator_kind],
        rationale=edge.rationale,
    )
    message.created_at.CopyFrom(to_timestamp(edge.created_at))
    return message


def edge_from_pb(message: pb.Edge) -> Edge:
    """For records we wrote ourselves; untrusted input goes through edge_draft_from_pb."""
    created_at = from_timestamp(message.created_at, message.HasField("created_at"))
    if created_at is None:
        raise ValueError(f"edge {message.src_id}->{message.dst_id} has no created_at")
    return Edge(
        src_id=message.src_id,
        dst_id=message.dst_id,
        kind=_KIND_BACK[message.kind],
        weight=message.weight,
        created_by=message.created_by,
        creator_kind=_CREATOR_BACK.get(message.creator_kind, CreatorKind.AGENT),
        rationale=message.rationale,
        created_at=created_at,
    )


def edge_draft_from_pb(message: pb.Edge) -> EdgeDraft:
    """A command's edge as a draft: unknown enum values become strings the domain rejects."""
    return EdgeDraft(
        src_id=message.src_id,
        dst_id=message.dst_id,
        kind=_KIND_BACK.get(message.kind, _unknown(message.kind)),
        weight=message.weight if message.HasField("weight") else None,
        rationale=message.rationale,
        creator_kind=_creator_of_command(message.creator_kind),
    )


def _creator_of_command(value: int) -> CreatorKind | str:
    if value == pb.CREATOR_KIND_UNSPECIFIED:
        return CreatorKind.AGENT
    return _CREATOR_BACK.get(value, _unknown(value))


def _unknown(value: int) -> str:
    return "unspecified" if value == 0 else f"unknown enum number {value}"
