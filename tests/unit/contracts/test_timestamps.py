"""The quick conversions give protobuf's own values, both ways, over datetime's whole range."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given
from hypothesis import strategies as st
from memhive.v1 import memory_pb2 as pb
from memhive_contracts.timestamps import from_timestamp, moment_of, set_timestamp, to_timestamp

OFFSETS = st.integers(-23 * 60, 23 * 60).map(lambda m: timezone(timedelta(minutes=m)))
MOMENTS = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=OFFSETS
)


@given(MOMENTS)
def test_a_datetime_becomes_the_timestamp_protobuf_makes_of_it(moment: datetime) -> None:
    expected = Timestamp()
    expected.FromDatetime(moment.astimezone(UTC))
    in_place = Timestamp()
    set_timestamp(in_place, moment)

    assert to_timestamp(moment) == expected == in_place


@given(st.integers(-62_135_596_800, 253_402_300_799), st.integers(0, 999_999_999))
def test_a_timestamp_becomes_the_datetime_protobuf_makes_of_it(seconds: int, nanos: int) -> None:
    stamp = Timestamp(seconds=seconds, nanos=nanos)
    moment = from_timestamp(stamp)

    assert moment == stamp.ToDatetime(tzinfo=UTC)
    assert moment.tzinfo is UTC


def test_an_absent_field_is_none_and_an_invalid_one_is_refused() -> None:
    assert from_timestamp(Timestamp(seconds=5), present=False) is None
    assert to_timestamp(None) is None
    for invalid in (Timestamp(nanos=-1), Timestamp(seconds=253_402_300_800)):
        with pytest.raises(ValueError):
            from_timestamp(invalid)


def test_a_missing_moment_leaves_the_field_unset_and_reads_back_as_none() -> None:
    span = pb.TimeSpan()
    set_timestamp(span.after, None)
    set_timestamp(span.before, datetime(2026, 11, 26, tzinfo=UTC))

    assert not span.HasField("after")
    assert moment_of(span, "after") is None
    assert moment_of(span, "before") == datetime(2026, 11, 26, tzinfo=UTC)
