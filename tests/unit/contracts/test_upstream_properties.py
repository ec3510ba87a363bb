"""Whatever a hook publishes, the event becomes memories or is refused as poison naming why.

Hooks in any language publish upstream events, so every field may hold anything protobuf
can carry: any text, any integer for an enum, a Timestamp of any seconds and nanos. The
mapping and the domain after it either accept the event or raise `InvalidInput` (or
`UndecodableMessage` for bytes that are not the message), which the consumer dead-letters
at once with that reason. Any other exception would be retried as if transient, then
dead-lettered only as "gave up after 5 deliveries": slower, and no field named.
"""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage
from memhive_contracts.mapping import memory_to_pb
from memhive_contracts.upstream_mapping import UPSTREAM_MESSAGE_TYPES, upstream_event_from_wire
from memhive_domain.errors import InvalidInput
from memhive_domain.upstream import create_upstream_memory, memories_from

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
}
# protobuf strings are UTF-8: no lone surrogates (the library refuses them on assignment)
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)
LONG = st.builds(lambda n: "x" * n, st.integers(190, 5000))
# Mostly ids that pass, so that most events reach the fields after them.
IDS = st.one_of([st.sampled_from(["evt-1", "PROJ-12", "a.b:c-d"])] * 6 + [TEXT, LONG])
NAMED = {
    "workspace_id": st.one_of([st.just("acme")] * 8 + [TEXT]),
    "product_id": st.one_of([st.sampled_from(["", "web"])] * 4 + [TEXT]),
}


def scalar(field: FieldDescriptor) -> st.SearchStrategy:
    if field.name in NAMED:
        return NAMED[field.name]
    if field.type == FieldDescriptor.TYPE_STRING:
        return IDS if field.name.endswith("_id") else TEXT | LONG
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type in INT_RANGES:
        low, high = INT_RANGES[field.type]
        near = st.integers(-3, 3) | st.integers(253402300700, 253402300900)  # 9999's end
        return near.filter(lambda n: low <= n <= high) | st.integers(low, high)
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(width=32 if field.type == FieldDescriptor.TYPE_FLOAT else 64)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=40)
    raise AssertionError(f"no strategy for {field.full_name}")


@st.composite
def message_of(draw, descriptor: Descriptor, depth: int = 0) -> dict:
    """Field values for `descriptor`, each field set or left out, nested messages too."""
    values: dict = {}
    for field in descriptor.fields:
        if draw(st.integers(0, 5)) == 5:
            continue  # left out (hypothesis draws 0 most, so present is the common case)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            one = message_of(field.message_type, depth + 1)
        else:
            one = scalar(field)
        many = st.lists(one, max_size=3 if depth else 4)
        values[field.name] = draw(many) if field.is_repeated else draw(one)
    return values


@st.composite
def published(draw) -> tuple[str, bytes]:
    """A subject a hook may publish on, and the bytes it sent there."""
    prefix = draw(st.sampled_from(sorted(UPSTREAM_MESSAGE_TYPES)))
    message_type = UPSTREAM_MESSAGE_TYPES[prefix]
    if draw(st.integers(0, 9)) == 9:
        return subjects.for_workspace(prefix, "acme"), draw(st.binary(max_size=60))
    message: Message = message_type(**draw(message_of(message_type.DESCRIPTOR)))
    workspace = message.workspace_id if draw(st.integers(0, 5)) == 5 else "acme"
    return subjects.for_workspace(prefix, workspace), message.SerializeToString()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(published())
def test_any_published_event_becomes_memories_or_is_refused_naming_why(
    sent: tuple[str, bytes],
) -> None:
    subject, payload = sent
    try:
        event = upstream_event_from_wire(subject, payload)
        for incoming in memories_from(event):
            memory_to_pb(create_upstream_memory(incoming, NOW))
    except InvalidInput as refused:
        assert refused.problems and all(p.field and p.message for p in refused.problems)
    except UndecodableMessage:
        pass
