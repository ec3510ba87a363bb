from __future__ import annotations

import asyncio
import uuid

import pytest
from memhive.v1 import events_pb2
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_contracts import streams, subjects
from memhive_contracts.codec import decode
from memhive_ports import BusUnavailable
from nats.js import JetStreamContext


async def test_the_same_msg_id_is_stored_once(js: JetStreamContext) -> None:
    subject = subjects.for_workspace(subjects.MEMORY_FORGOTTEN, f"ws-{uuid.uuid4().hex[:8]}")
    publisher = JetStreamPublisher(js)
    event = events_pb2.MemoryForgotten(event_id="e-1", reason="test")
    msg_id = str(uuid.uuid4())

    await publisher.publish(subject, event, msg_id=msg_id)
    await publisher.publish(subject, event, msg_id=msg_id)
    await publisher.publish(subject, event, msg_id=str(uuid.uuid4()))

    info = await js.stream_info(streams.LOG_STREAM, subjects_filter=subject)
    assert info.state.subjects == {subject: 2}
    stored = await js.get_msg(streams.LOG_STREAM, subject=subject)
    assert decode(stored.data, events_pb2.MemoryForgotten).event_id == "e-1"


async def test_no_stream_is_retried_then_told_as_bus_unavailable(js: JetStreamContext) -> None:
    """A subject no stream owns (as while a stream has no leader): retried, then refused."""
    publisher = JetStreamPublisher(js, pauses_s=(0.01, 0.01))
    with pytest.raises(BusUnavailable, match="after 3 attempts: no stream took the message"):
        await publisher.publish(
            f"nowhere.{uuid.uuid4().hex}", events_pb2.MemoryForgotten(), msg_id="m"
        )


async def test_a_stream_that_comes_back_during_the_retries_stores_the_message_once(
    js: JetStreamContext,
) -> None:
    name = f"T{uuid.uuid4().hex[:8]}"
    subject = f"{name.lower()}.event"
    publisher = JetStreamPublisher(js, pauses_s=(0.2, 0.2, 0.2, 0.2))

    async def stream_appears() -> None:
        await asyncio.sleep(0.3)
        await js.add_stream(name=name, subjects=[subject])

    try:
        await asyncio.gather(
            publisher.publish(subject, events_pb2.MemoryForgotten(event_id="e"), msg_id="m-1"),
            stream_appears(),
        )
        assert (await js.stream_info(name)).state.messages == 1
    finally:
        await js.delete_stream(name)
