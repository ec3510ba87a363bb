from __future__ import annotations

from memhive_adapters.nats.connection import ensure_stream, ensure_streams
from memhive_contracts import streams
from memhive_contracts.streams import StreamSpec
from nats.js import JetStreamContext


async def test_every_stream_and_bucket_is_declared_with_its_shape(js: JetStreamContext) -> None:
    await ensure_streams(js)  # a second time: idempotent

    for spec in streams.STREAMS:
        config = (await js.stream_info(spec.name)).config
        assert set(spec.subjects) <= set(config.subjects or [])
        assert config.storage == "file"
        assert config.duplicate_window == streams.DUPLICATE_WINDOW_S
        assert config.max_age == spec.max_age_s
    memories = await (await js.key_value(streams.MEMORIES_BUCKET)).status()
    assert memories.history == streams.KV_HISTORY
    await js.key_value(streams.TOKENS_BUCKET)


async def test_an_existing_stream_gains_new_subjects_and_keeps_its_messages(
    js: JetStreamContext,
) -> None:
    await ensure_stream(js, StreamSpec("TEST_GROWING", ("growing.a.>",)))
    await js.publish("growing.a.x", b"old")

    await ensure_stream(js, StreamSpec("TEST_GROWING", ("growing.a.>", "growing.b.>")))
    await js.publish("growing.b.x", b"new")

    info = await js.stream_info("TEST_GROWING")
    assert info.config.subjects == ["growing.a.>", "growing.b.>"]
    assert info.state.messages == 2
    await js.delete_stream("TEST_GROWING")
