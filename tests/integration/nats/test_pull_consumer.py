from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable

import pytest
from memhive.v1 import events_pb2
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.dead_letters import DeadLetters
from memhive_contracts import streams
from memhive_contracts.codec import decode
from memhive_ports import BusUnavailable, InsufficientStorage
from memhive_ports.poison import Poison
from memhive_telemetry.logs import JsonLogFormatter
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from tests.integration.nats.consuming import (
    WAIT_S,
    ScriptedHandler,
    drained,
    publish_all,
    subject_for,
    unique,
)
from tests.waiting import until

FAST_BACKOFF = (0.05,)


@pytest.fixture
def durable() -> str:
    return unique("test-consumer")


@pytest.fixture
def subject() -> str:
    return subject_for(unique("ws"))


@pytest.fixture
async def running(js: JetStreamContext) -> AsyncIterator[Callable[..., PullConsumer]]:
    """Builds and starts consumers on the log stream; stops them all after the test."""
    started: list[PullConsumer] = []

    async def start(durable: str, subjects: list[str], handler: ScriptedHandler, **options):
        consumer = PullConsumer(
            options.pop("js", js),
            stream=streams.LOG_STREAM,
            durable=durable,
            subjects=subjects,
            handle_batch=handler,
            **options,
        )
        await consumer.start()
        started.append(consumer)
        return consumer

    yield start
    for consumer in started:
        await consumer.stop()


def poison_on(payload: bytes) -> Callable[[Msg], Exception | None]:
    return lambda msg: Poison(f"cannot use {msg.data!r}") if msg.data == payload else None


async def test_handled_messages_are_acked_once(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = ScriptedHandler()
    await running(durable, [subject], handler)
    payloads = [f"m{i}".encode() for i in range(5)]

    await publish_all(js, subject, payloads)
    await drained(js, durable)

    assert sorted(handler.handled) == payloads
    info = await js.consumer_info(streams.LOG_STREAM, durable)
    assert info.num_redelivered == 0


async def test_a_poison_message_is_dead_lettered_and_those_behind_it_are_handled(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = ScriptedHandler(fail=poison_on(b"poison"))
    await publish_all(js, subject, [b"a", b"poison", b"b", b"c"])

    await running(durable, [subject], handler)
    await drained(js, durable)

    assert sorted(handler.handled) == [b"a", b"b", b"c"]
    [letter] = await DeadLetters(js).list(consumer=durable)
    assert (letter.payload, letter.subject, letter.consumer) == (b"poison", subject, durable)
    assert letter.reason == "cannot use b'poison'"
    assert letter.deliveries == 1


async def test_an_undecodable_message_is_dead_lettered_at_once(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    def decode_it(msg: Msg) -> Exception | None:
        try:
            decode(msg.data, events_pb2.MemoryForgotten)
        except Exception as exc:
            return exc
        return None

    await running(durable, [subject], ScriptedHandler(fail=decode_it), max_deliveries=5)
    await publish_all(js, subject, [b"\xff\xff\xff"])
    await drained(js, durable)

    [letter] = await DeadLetters(js).list(consumer=durable)
    assert letter.reason.startswith("UndecodableMessage: not a valid memhive.v1.MemoryForgotten")
    assert letter.deliveries == 1


async def test_a_transient_failure_is_retried_until_it_succeeds(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    def flaky(msg: Msg) -> Exception | None:
        return RuntimeError("store unavailable") if msg.metadata.num_delivered < 3 else None

    handler = ScriptedHandler(fail=flaky)
    await running(durable, [subject], handler, max_deliveries=5, backoff_s=FAST_BACKOFF)
    await publish_all(js, subject, [b"flaky"])
    await drained(js, durable)

    assert handler.handled == [b"flaky"]
    assert len(handler.calls) == 3
    assert await DeadLetters(js).list(consumer=durable) == []


async def test_a_message_failing_every_delivery_is_dead_lettered_at_the_limit(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = ScriptedHandler(fail=lambda msg: RuntimeError("always down"))
    await running(durable, [subject], handler, max_deliveries=3, backoff_s=FAST_BACKOFF)
    await publish_all(js, subject, [b"doomed"])
    await drained(js, durable)

    assert len(handler.calls) == 3
    [letter] = await DeadLetters(js).list(consumer=durable)
    assert letter.deliveries == 3
    assert letter.reason == "gave up after 3 deliveries: RuntimeError: always down"


@pytest.mark.parametrize(
    "fault",
    [BusUnavailable("the bus did not answer"), InsufficientStorage("the disk is nearly full")],
)
async def test_a_fault_that_heals_by_itself_is_retried_past_the_limit_never_dead_lettered(
    js: JetStreamContext, running, durable: str, subject: str, fault: Exception
) -> None:
    """A stalled bus or a full disk can outlast any number of deliveries: the message waits
    it out instead of landing in the dead letters (where nobody would apply it)."""

    def until_healed(msg: Msg) -> Exception | None:
        return fault if msg.metadata.num_delivered <= 4 else None

    handler = ScriptedHandler(fail=until_healed)
    await running(durable, [subject], handler, max_deliveries=2, backoff_s=FAST_BACKOFF)
    await publish_all(js, subject, [b"waits"])
    await drained(js, durable)

    assert handler.handled == [b"waits"]
    assert len(handler.calls) == 5
    assert await DeadLetters(js).list(consumer=durable) == []


async def test_a_failed_batch_is_retried_one_message_at_a_time(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    def only_singles(msg: Msg) -> Exception | None:
        return RuntimeError("batch write failed") if len(handler.calls[-1]) > 1 else None

    # The consumer hands out what has arrived, so the first batch may be [a] alone; a single
    # that succeeds takes a while, so that what follows it arrives as one batch.
    handler = ScriptedHandler(fail=only_singles, work_s=0.2)
    await publish_all(js, subject, [b"a", b"b", b"c"])

    await running(durable, [subject], handler)
    await drained(js, durable)

    batches = [i for i, call in enumerate(handler.calls) if len(call) > 1]
    assert batches, handler.calls
    for i in batches:  # each failed batch is followed by its messages, one call each
        failed = handler.calls[i]
        assert handler.calls[i + 1 : i + 1 + len(failed)] == [[m] for m in failed]
    assert handler.handled == [b"a", b"b", b"c"]
    assert (await js.consumer_info(streams.LOG_STREAM, durable)).num_redelivered == 0


async def test_two_instances_of_one_durable_share_the_work_without_overlap(
    js: JetStreamContext, nats_url: str, admin, running, durable: str, subject: str
) -> None:
    other_client = await connect(nats_url, name="second-instance", timeout_s=5, credentials=admin)
    first, second = ScriptedHandler(work_s=0.005), ScriptedHandler(work_s=0.005)
    await running(durable, [subject], first, batch_size=8)
    other = await running(durable, [subject], second, batch_size=8, js=other_client.jetstream())
    payloads = [f"m{i:03}".encode() for i in range(120)]

    await publish_all(js, subject, payloads)
    await drained(js, durable)

    assert sorted(first.handled + second.handled) == payloads
    assert first.handled and second.handled
    await other.stop()
    await other_client.drain()


async def test_stop_lets_the_batch_in_flight_finish_and_be_acked(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    entered, release = asyncio.Event(), asyncio.Event()
    handled: list[bytes] = []

    async def slow(msgs) -> None:
        entered.set()
        await release.wait()
        handled.extend(m.data for m in msgs)

    consumer = PullConsumer(
        js, stream=streams.LOG_STREAM, durable=durable, subjects=[subject], handle_batch=slow
    )
    await consumer.start()
    await publish_all(js, subject, [b"in-flight"])
    await asyncio.wait_for(entered.wait(), WAIT_S)

    stopping = asyncio.create_task(consumer.stop())
    release.set()
    await asyncio.wait_for(stopping, WAIT_S)

    assert handled == [b"in-flight"]
    await drained(js, durable)


async def test_one_pull_request_serves_many_messages(
    js: JetStreamContext, nats_client, running, durable: str, subject: str
) -> None:
    """A message costs its delivery and its ack: not also a request and a status message,
    as a fetch per message did (a save crosses several consumers one message at a time)."""
    requests = 0

    async def count(msg) -> None:
        nonlocal requests
        requests += 1

    spy = await nats_client.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.*.{durable}", cb=count)
    handler = ScriptedHandler()
    await running(durable, [subject], handler, batch_size=64)
    for n in range(20):  # one at a time, each handled before the next is sent
        await publish_all(js, subject, [f"m{n}".encode()])
        await until(lambda n=n: len(handler.handled) == n + 1, WAIT_S)
    await drained(js, durable)
    await spy.unsubscribe()

    assert requests <= 2


class LaterDurable:
    """A handler whose writes become durable only when the test says so (a group commit):
    it returns, for each batch, a future the test completes or fails."""

    def __init__(self) -> None:
        self.handled: list[bytes] = []
        self.pending: list[asyncio.Future[None]] = []

    async def __call__(self, msgs) -> asyncio.Future[None]:
        self.handled.extend(m.data for m in msgs)
        self.pending.append(asyncio.get_running_loop().create_future())
        return self.pending[-1]

    def commit(self, error: Exception | None = None) -> None:
        for future in self.pending:
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)
        self.pending.clear()


async def test_writes_durable_later_are_acked_then_while_the_loop_goes_on(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = LaterDurable()
    await running(durable, [subject], handler)

    await publish_all(js, subject, [b"first"])
    await until(lambda: handler.handled == [b"first"], WAIT_S)
    await publish_all(js, subject, [b"second"])
    await until(
        lambda: handler.handled == [b"first", b"second"], WAIT_S
    )  # not held up by the first

    assert (await js.consumer_info(streams.LOG_STREAM, durable)).num_ack_pending == 2
    handler.commit()
    await drained(js, durable)
    assert (await js.consumer_info(streams.LOG_STREAM, durable)).num_redelivered == 0


async def test_writes_that_never_became_durable_come_back(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = LaterDurable()
    await running(durable, [subject], handler, backoff_s=FAST_BACKOFF)

    await publish_all(js, subject, [b"lost in a crash"])
    await until(lambda: len(handler.pending) == 1, WAIT_S)
    handler.commit(OSError("commit failed"))
    await until(lambda: len(handler.pending) == 1, WAIT_S)  # delivered again, handled again
    handler.commit()
    await drained(js, durable)

    assert handler.handled == [b"lost in a crash", b"lost in a crash"]


async def test_stop_waits_for_handled_batches_to_become_durable(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    handler = LaterDurable()
    consumer = await running(durable, [subject], handler)
    await publish_all(js, subject, [b"handled"])
    await until(lambda: len(handler.pending) == 1, WAIT_S)

    stopping = asyncio.create_task(consumer.stop())
    await asyncio.sleep(0.1)
    assert not stopping.done()
    handler.commit()
    await asyncio.wait_for(stopping, WAIT_S)

    await drained(js, durable)


async def test_restarting_with_more_subjects_updates_the_durable(
    js: JetStreamContext, running, durable: str
) -> None:
    old, new = subject_for(unique("ws")), subject_for(unique("ws"))
    first = await running(durable, [old], ScriptedHandler())
    await first.stop()

    handler = ScriptedHandler()
    await running(durable, [old, new], handler)
    await publish_all(js, new, [b"on the new subject"])
    await drained(js, durable)

    assert handler.handled == [b"on the new subject"]


async def test_lag_that_cannot_be_read_never_holds_up_the_work(
    js: JetStreamContext,
    nats_url: str,
    admin,
    running,
    durable: str,
    subject: str,
    monkeypatch,
    caplog,
) -> None:
    """Consumer info refused (a permission, a leader election) is no loop error: the
    messages are handled and the loop never pauses to recover."""
    from memhive_adapters.nats import consumer_telemetry

    monkeypatch.setattr(consumer_telemetry, "LAG_REFRESH_S", 0.0)
    own = await connect(nats_url, name="refused-info", timeout_s=5, credentials=admin)
    refusing = own.jetstream()
    refusals = 0

    async def refuse(*args, **kwargs):
        nonlocal refusals
        refusals += 1
        raise RuntimeError("permissions violation for consumer info")

    monkeypatch.setattr(refusing, "consumer_info", refuse)
    handler = ScriptedHandler()
    consumer = await running(durable, [subject], handler, js=refusing)
    payloads = [f"m{i}".encode() for i in range(5)]
    await publish_all(js, subject, payloads)
    await drained(js, durable)

    assert sorted(handler.handled) == payloads
    assert refusals >= 1
    assert not [r for r in caplog.records if "loop error" in r.getMessage()]
    await consumer.stop()
    await own.drain()


class JsonLines(logging.Handler):
    """Formats each record as it is emitted, while its context is still current."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(JsonLogFormatter())
        self.records: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(json.loads(self.format(record)))


async def test_what_is_logged_about_a_failed_message_carries_its_trace_id(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    """The retry warning and the dead letter name the trace of the save behind the message,
    though both happen after its handler's span has ended."""
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    traceparent = f"00-{trace_id}-00f067aa0ba902b7-01"

    def fail(msg: Msg) -> Exception:
        return RuntimeError("down") if msg.metadata.num_delivered < 2 else Poison("bad")

    lines = JsonLines()
    logging.getLogger().addHandler(lines)
    try:
        await running(durable, [subject], ScriptedHandler(fail=fail), backoff_s=FAST_BACKOFF)
        await js.publish(subject, b"traced", headers={"traceparent": traceparent})
        await js.publish(subject, b"untraced")
        await drained(js, durable)
    finally:
        logging.getLogger().removeHandler(lines)

    def trace_ids(marker: str) -> list[str | None]:
        mine = [r for r in lines.records if durable in r["message"] and marker in r["message"]]
        return sorted((r.get("trace_id") for r in mine), key=str)

    # Each message is retried once, then dead-lettered: only the traced one names a trace.
    assert trace_ids("retry in") == [trace_id, None]
    assert trace_ids("dead-lettered") == [trace_id, None]


async def test_a_batch_handled_past_ack_wait_is_kept_by_in_progress_acks_not_redelivered(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    """A handler that takes three ack waits: the server would hand its messages to another
    instance after one, unless it hears they are still being worked on."""
    handler = ScriptedHandler(work_s=3.0)
    await publish_all(js, subject, [b"slow-1", b"slow-2"])
    await running(durable, [subject], handler, ack_wait_s=1.0, batch_size=2)

    await drained(js, durable)

    assert sorted(handler.handled) == [b"slow-1", b"slow-2"]
    assert sum(len(call) for call in handler.calls) == 2  # each delivered once
    info = await js.consumer_info(streams.LOG_STREAM, durable)
    assert info.num_redelivered == 0


async def test_in_progress_acks_stop_with_the_batch(
    js: JetStreamContext, running, durable: str, subject: str
) -> None:
    """Once a batch is acked, nothing more is sent for it (an in-progress ack after the ack
    would be an error on the server, and a timer left running would leak with each batch)."""
    handler = ScriptedHandler(work_s=0.7)
    await publish_all(js, subject, [b"a"])
    await running(durable, [subject], handler, ack_wait_s=1.5)
    await drained(js, durable)
    sent: list[str] = []
    real_in_progress = Msg.in_progress

    async def counted(msg: Msg) -> None:
        sent.append(msg.data.decode())
        await real_in_progress(msg)

    Msg.in_progress = counted  # type: ignore[method-assign]
    try:
        await asyncio.sleep(1.5)  # three of the interval at which progress is reported
    finally:
        Msg.in_progress = real_in_progress  # type: ignore[method-assign]
    assert sent == []
