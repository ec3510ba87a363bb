from __future__ import annotations

from pathlib import Path

from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_contracts import streams

from tests.integration.conftest import free_port
from tests.integration.nats.consuming import ScriptedHandler, drained, publish_all

SUBJECT = "memhive.evt.test.restart"


async def test_the_consumer_resumes_after_the_server_restarts(tmp_path: Path) -> None:
    handler = ScriptedHandler()
    async with EmbeddedNatsServer(tmp_path / "store", port=free_port()) as server:
        client = await connect(server.url, name="survivor", timeout_s=5)
        js = client.jetstream()
        await ensure_streams(js)
        consumer = PullConsumer(
            js, stream=streams.LOG_STREAM, durable="survivor", subjects=[SUBJECT],
            handle_batch=handler,
        )  # fmt: skip
        await consumer.start()
        try:
            await publish_all(js, SUBJECT, [b"before"])
            await drained(js, "survivor")
            await server.stop()
            await server.start()
            await publish_all(js, SUBJECT, [b"after"])  # buffered until the client reconnects
            await drained(js, "survivor")
        finally:
            await consumer.stop()
            await client.close()

    assert handler.handled == [b"before", b"after"]
