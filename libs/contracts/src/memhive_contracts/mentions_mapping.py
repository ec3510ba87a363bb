"""A memory's mentions (domain/mentions.py) and their protobuf shape, `MemoryMentions`."""

from __future__ import annotations

from memhive.v1 import memory_pb2 as pb
from memhive_domain.mentions import Mentions
from memhive_domain.time_range import TimeRange

from memhive_contracts.timestamps import moment_of, set_timestamp


def mentions_to_pb(mentions: Mentions) -> pb.MemoryMentions:
    return pb.MemoryMentions(
        speaker=mentions.speaker or "",
        people=list(mentions.people),
        times=[_span_to_pb(t) for t in mentions.times],
        dated=mentions.dated,
        asks=mentions.asks,
    )


def mentions_from_pb(message: pb.MemoryMentions) -> Mentions:
    return Mentions(
        speaker=message.speaker or None,
        people=tuple(message.people),
        times=tuple(_span_from_pb(t) for t in message.times),
        dated=message.dated,
        asks=message.asks,
    )


def _span_to_pb(span: TimeRange) -> pb.TimeSpan:
    message = pb.TimeSpan()
    for name in ("after", "before"):
        set_timestamp(getattr(message, name), getattr(span, name))
    return message


def _span_from_pb(message: pb.TimeSpan) -> TimeRange:
    return TimeRange(moment_of(message, "after"), moment_of(message, "before"))
