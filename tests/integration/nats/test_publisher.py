from __future__ import annotations

import uuid

from memhive.v1 import events_pb2
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_contracts import streams, subjects
from memhive_contracts.codec import decode
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
