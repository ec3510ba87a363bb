"""JetStreamEventCounts: the server counts a subject's messages from a moment on."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from memhive_adapters.nats.event_counts import JetStreamEventCounts
from memhive_contracts.streams import LOG_STREAM
from nats.js import JetStreamContext


async def test_counts_from_each_moment_on_for_one_subject_only(js: JetStreamContext) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:8]}"
    subject = f"memhive.evt.memory.saved.{workspace}"
    before = datetime.now(UTC) - timedelta(seconds=5)
    for _ in range(3):
        await js.publish(subject, b"x")
    await js.publish(f"memhive.evt.memory.saved.{workspace}-other", b"x")
    later = datetime.now(UTC) + timedelta(hours=1)

    counts = await JetStreamEventCounts(js).since(LOG_STREAM, subject, [before, later])

    assert counts == [3, 0]
    consumers = [c.name for c in await js.consumers_info(LOG_STREAM)]
    assert not [name for name in consumers if name.startswith("count-")]
