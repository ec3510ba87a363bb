"""Datetimes and protobuf Timestamps, both ways: the same values as protobuf's own
`FromDatetime` / `ToDatetime(tzinfo=UTC)`, by integer arithmetic on one timedelta.

A save converts a dozen moments in each process it crosses (every record and event carries
its memory's); protobuf's helpers go through a time tuple and `calendar.timegm` one way and
an aware datetime's `astimezone` the other: 3x and 2x the cost of the sum below.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.timestamp_pb2 import Timestamp

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY_S = 86_400
_NANOS_PER_S = 1_000_000_000


def to_timestamp(moment: datetime | None) -> Timestamp | None:
    if moment is None:
        return None
    stamp = Timestamp()
    set_timestamp(stamp, moment)
    return stamp


def set_timestamp(stamp: Timestamp, moment: datetime | None) -> None:
    """Writes `moment` into a message's Timestamp field in place (no copy); None leaves
    the field unset. A naive datetime is taken as local time, as `astimezone` takes it."""
    if moment is None:
        return
    if moment.tzinfo is None:
        moment = moment.astimezone(UTC)
    since = moment - _EPOCH
    stamp.seconds = since.days * _DAY_S + since.seconds
    stamp.nanos = since.microseconds * 1000


def moment_of(message, name: str) -> datetime | None:
    """The message's Timestamp field `name` as `from_timestamp` gives it; None when unset."""
    return from_timestamp(getattr(message, name), message.HasField(name))


def from_timestamp(stamp: Timestamp, present: bool = True) -> datetime | None:
    """An aware UTC datetime (nanoseconds cut to microseconds, as protobuf does); None when
    the field is not `present`."""
    if not present:
        return None
    nanos = stamp.nanos
    if not 0 <= nanos < _NANOS_PER_S:
        raise ValueError(f"Timestamp is not valid: nanos {nanos} out of [0, 1e9)")
    try:
        return _EPOCH + timedelta(seconds=stamp.seconds, microseconds=nanos // 1000)
    except OverflowError as beyond:  # past datetime's years 1-9999, as protobuf refuses it
        raise ValueError(f"Timestamp is not valid: seconds {stamp.seconds}") from beyond
