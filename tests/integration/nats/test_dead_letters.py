from __future__ import annotations

import pytest
from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.dead_letters import DeadLetters, send_to_dead_letters
from memhive_contracts import streams
from memhive_ports.poison import Poison
from nats.js import JetStreamContext

from tests.integration.nats.consuming import ScriptedHandler, drained, subject_for, unique


async def test_dead_lettering_one_message_twice_stores_it_once(js: JetStreamContext) -> None:
    subject, durable = subject_for(unique("ws")), unique("dlq-twice")
    await js.publish(subject, b"payload", headers={"Trace-Id": "t-1"})
    sub = await js.pull_subscribe(subject, durable=durable, stream=streams.LOG_STREAM)
    [msg] = await sub.fetch(1)

    await send_to_dead_letters(js, msg, durable, "first\ntry")
    await send_to_dead_letters(js, msg, durable, "second try")

    [letter] = await DeadLetters(js).list(consumer=durable)
    assert (letter.reason, letter.payload, letter.subject) == ("first try", b"payload", subject)
    assert letter.headers == {"Trace-Id": "t-1"}
    assert letter.time is not None
    await sub.unsubscribe()


async def test_list_filters_by_consumer_and_honours_the_limit(js: JetStreamContext) -> None:
    subject = subject_for(unique("ws"))
    durables = [unique("dlq-list"), unique("dlq-list")]
    for durable in durables:
        sub = await js.pull_subscribe(subject, durable=durable, stream=streams.LOG_STREAM)
        await js.publish(subject, durable.encode())
        for msg in await sub.fetch(3, timeout=1):
            await send_to_dead_letters(js, msg, durable, "test")
        await sub.unsubscribe()

    first = await DeadLetters(js).list(consumer=durables[0])
    everyone = await DeadLetters(js).list(limit=1000)

    assert [d.consumer for d in first] == [durables[0]]
    assert {durables[0], durables[1]} <= {d.consumer for d in everyone}
    assert len(await DeadLetters(js).list(limit=1)) == 1


async def test_a_replayed_dead_letter_is_handled_and_leaves_the_queue(js: JetStreamContext) -> None:
    subject, durable = subject_for(unique("ws")), unique("dlq-replay")
    refuse = True
    handler = ScriptedHandler(fail=lambda msg: Poison("not yet") if refuse else None)
    consumer = PullConsumer(
        js, stream=streams.LOG_STREAM, durable=durable, subjects=[subject], handle_batch=handler
    )
    await consumer.start()
    await js.publish(subject, b"second chance", headers={streams.MSG_ID_HEADER: unique("id")})
    await drained(js, durable)
    [letter] = await DeadLetters(js).list(consumer=durable)

    refuse = False
    await DeadLetters(js).replay(letter.sequence)
    await drained(js, durable)
    await consumer.stop()

    assert handler.handled == [b"second chance"]
    assert await DeadLetters(js).list(consumer=durable) == []


async def test_replaying_an_unknown_sequence_is_a_lookup_error(js: JetStreamContext) -> None:
    with pytest.raises(LookupError):
        await DeadLetters(js).replay(10**9)
