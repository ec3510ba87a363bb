"""The durable pull-consumer loop every service handler runs in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from memhive_contracts.codec import UndecodableMessage
from memhive_domain.errors import InvalidInput
from memhive_ports import RetryLater
from memhive_ports.poison import Poison
from nats.aio.msg import Msg
from nats.errors import ConnectionClosedError
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig

from memhive_adapters.nats.consumer_telemetry import ConsumerTelemetry
from memhive_adapters.nats.dead_letters import send_to_dead_letters
from memhive_adapters.nats.in_progress import InProgressAcks
from memhive_adapters.nats.pull_stream import PullStream

log = logging.getLogger(__name__)

# A handler returns once its writes are done; when some become durable only later (the
# lexical lane's group commits) it returns an awaitable that completes once they are.
BatchHandler = Callable[[Sequence[Msg]], Awaitable[Awaitable[None] | None]]

# An idle fetch long-polls this long; short enough that a stop is never held up for long.
IDLE_FETCH_S = 2.0
# After an error outside the handler (connection lost, consumer gone): pause, then resume.
RECOVERY_PAUSE_S = 1.0


def poison_reason(exc: BaseException) -> str | None:
    """Why `exc` makes its message poison, or None when a retry may succeed."""
    if isinstance(exc, Poison):
        return exc.reason
    if isinstance(exc, UndecodableMessage | InvalidInput):
        return f"{type(exc).__name__}: {exc}"
    return None


def backoff_delay(backoff_s: Sequence[float], num_delivered: int) -> float:
    """The redelivery delay after the `num_delivered`-th failed delivery (the last one repeats)."""
    if not backoff_s:
        return 0.0
    return backoff_s[min(max(num_delivered, 1), len(backoff_s)) - 1]


class PullConsumer:
    """Runs `handle_batch` over a durable JetStream pull consumer, with explicit acks.

    - Takes up to `batch_size` messages but never waits to fill a batch: it handles what
      has arrived as soon as anything has. One pull request stays open and is topped up
      (`PullStream`), so a message costs its delivery and its ack on the bus, not also a
      request and a status message per fetch.
    - `handle_batch(msgs)` returning means its writes are durable: every message is acked.
      If it returns an awaitable, its writes are durable once that completes: the messages
      are acked then, in the background, while the loop goes on with the next batch; if
      it fails they are nak'ed and come back.
    - If it raises, each message is retried alone (`handle_batch([m])`), so one bad message
      cannot fail its neighbours, and the messages behind a poison one are still handled.
    - A single message that raises Poison, UndecodableMessage or InvalidInput is
      dead-lettered at once. RetryLater (the bus unavailable, the disk full: faults that
      heal by themselves) naks it with `backoff_s` delay for as long as it lasts, never
      dead-lettering it. Any other exception naks it the same way until its
      `max_deliveries`-th delivery fails, which dead-letters it.
    - Dead-lettering publishes the original payload and headers to
      `subjects.dead_letter(durable)` with the reason, original subject, consumer and
      delivery count, under a msg id derived from the stream sequence (dead-lettering the
      same message twice stores it once), and only then terms the original. If that
      publish fails the message is nak'ed and comes back: nothing is dropped silently.
    - While a handler runs, in-progress acks keep its messages from being redelivered
      elsewhere, however long it takes.
    - Errors outside the handler (a lost connection, a deleted consumer) are logged; the loop
      pauses, re-declares the consumer and goes on.
    - Each batch is handled in a span joined to its messages' traces (the publisher put the
      W3C trace context in their headers); its outcomes and lag are metrics.
    - Instances with the same `durable` share its messages (horizontal scaling); each
      message goes to one of them at a time.
    - `stop()` lets the in-flight batch finish and be acked. A message the server handed
      out while the idle fetch was being cancelled is redelivered after `ack_wait_s`.
    """

    def __init__(
        self,
        js: JetStreamContext,
        *,
        stream: str,
        durable: str,
        subjects: Sequence[str],
        handle_batch: BatchHandler,
        batch_size: int = 64,
        max_deliveries: int = 5,
        ack_wait_s: float = 30,
        backoff_s: Sequence[float] = (0.2, 1, 5),
    ) -> None:
        if batch_size < 1 or max_deliveries < 1:
            raise ValueError("batch_size and max_deliveries must be at least 1")
        self._js, self._stream, self._durable = js, stream, durable
        self._subjects = list(subjects)
        self._handle_batch = handle_batch
        self._batch_size, self._max_deliveries = batch_size, max_deliveries
        self._ack_wait_s, self._backoff_s = ack_wait_s, tuple(backoff_s)
        self._pulls: PullStream | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._fetching = False
        self._telemetry = ConsumerTelemetry(durable)
        self._acking: set[asyncio.Task[None]] = set()

    @property
    def durable(self) -> str:
        return self._durable

    def _config(self) -> ConsumerConfig:
        # No server-side max_deliver: the server would drop the message silently at the
        # limit, so this loop counts deliveries and dead-letters instead.
        return ConsumerConfig(
            name=self._durable,
            durable_name=self._durable,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=self._ack_wait_s,
            filter_subjects=self._subjects,
            max_deliver=-1,
        )

    async def start(self) -> None:
        """Creates or updates the durable consumer, then starts the loop."""
        if self._task is not None:
            raise RuntimeError(f"consumer {self._durable} already started")
        await self._js.add_consumer(self._stream, config=self._config())
        # nats-py keeps the JetStream context's connection as `_nc`; the pull requests and
        # their inbox are plain NATS on it.
        self._pulls = PullStream(self._js._nc, self._stream, self._durable, self._batch_size)
        await self._pulls.open()
        self._stopping.clear()
        self._task = asyncio.create_task(self._run(), name=f"pull-consumer:{self._durable}")

    async def stop(self) -> None:
        """Finishes the in-flight batch (handled and acked), then stops."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping.set()
        if self._fetching:
            task.cancel()  # only an idle fetch is interrupted, never a handler
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if self._acking:  # batches handled, waiting to be durable (a group commit away)
            await asyncio.gather(*self._acking, return_exceptions=True)
        pulls, self._pulls = self._pulls, None
        if pulls is not None:
            await pulls.close()

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                msgs = await self._fetch()
                if msgs:
                    await self._process(msgs)
                await self._read_lag()
            except ConnectionClosedError:
                log.warning("consumer %s: connection closed; waiting to be stopped", self._durable)
                await self._recover()
            except Exception:
                log.exception("consumer %s: loop error; resuming", self._durable)
                await self._recover()

    async def _fetch(self) -> list[Msg]:
        assert self._pulls is not None
        self._fetching = True
        try:
            return await self._pulls.next_batch(IDLE_FETCH_S)
        finally:
            self._fetching = False

    async def _read_lag(self) -> None:
        if self._pulls is None or not self._telemetry.lag_due():
            return
        try:
            info = await self._js.consumer_info(self._stream, self._durable)
        except Exception as exc:  # a metric never holds up the work; retried next period
            self._telemetry.lag_unread()
            log.debug("consumer %s: lag not read: %r", self._durable, exc)
            return
        self._telemetry.record_lag(info.num_pending or 0, info.num_ack_pending or 0)

    async def _recover(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), RECOVERY_PAUSE_S)
        if self._stopping.is_set():
            return
        try:
            await self._js.add_consumer(self._stream, config=self._config())
        except Exception as exc:
            log.warning("consumer %s: cannot re-declare yet: %r", self._durable, exc)
            return
        if self._pulls is not None:
            self._pulls.restart()  # its open requests may have died with the consumer

    async def _process(self, msgs: Sequence[Msg]) -> None:
        try:
            durable = await self._handle_with_progress(msgs)
        except Exception as exc:
            if len(msgs) == 1:
                await self._settle_failure(msgs[0], exc)
                return
            log.warning(
                "consumer %s: batch of %d failed (%r); retrying one by one",
                self._durable, len(msgs), exc,
            )  # fmt: skip
            for msg in msgs:
                await self._process_one(msg)
            return
        await self._ack_once_durable(msgs, durable)

    async def _process_one(self, msg: Msg) -> None:
        try:
            durable = await self._handle_with_progress([msg])
        except Exception as exc:
            await self._settle_failure(msg, exc)
        else:
            await self._ack_once_durable([msg], durable)

    async def _ack_once_durable(self, msgs: Sequence[Msg], durable: Awaitable[None] | None) -> None:
        if durable is None:
            await self._ack(msgs)
            return
        task = asyncio.create_task(self._ack_when(msgs, durable))
        self._acking.add(task)
        task.add_done_callback(self._acking.discard)

    async def _ack_when(self, msgs: Sequence[Msg], durable: Awaitable[None]) -> None:
        try:
            await durable
        except Exception as exc:
            log.warning(
                "consumer %s: %d handled messages did not become durable (%r); they come back",
                self._durable, len(msgs), exc,
            )  # fmt: skip
            for msg in msgs:
                await msg.nak(delay=backoff_delay(self._backoff_s, msg.metadata.num_delivered))
            self._telemetry.settled("nak", len(msgs))
            return
        try:
            await self._ack(msgs)
        except Exception as exc:  # unacked, they come back after ack_wait: no loss
            log.warning("consumer %s: acks not sent: %r", self._durable, exc)

    async def _ack(self, msgs: Sequence[Msg]) -> None:
        for msg in msgs:
            await msg.ack()
        self._telemetry.settled("ack", len(msgs))

    async def _handle_with_progress(self, msgs: Sequence[Msg]) -> Awaitable[None] | None:
        progress = InProgressAcks(msgs, every_s=self._ack_wait_s / 3)
        try:
            with self._telemetry.batch_span(msgs):
                return await self._handle_batch(msgs)
        finally:
            await progress.stop()

    async def _settle_failure(self, msg: Msg, exc: Exception) -> None:
        # In the message's trace, so its log lines carry the trace id of the save behind it.
        with self._telemetry.in_trace_of(msg):
            await self._retry_or_dead_letter(msg, exc)

    async def _retry_or_dead_letter(self, msg: Msg, exc: Exception) -> None:
        reason = poison_reason(exc)
        deliveries = msg.metadata.num_delivered
        waits_out = isinstance(exc, RetryLater)  # no count of deliveries makes it poison
        if reason is None and (waits_out or deliveries < self._max_deliveries):
            delay = backoff_delay(self._backoff_s, deliveries)
            log.warning(
                "consumer %s: %s seq %s failed (delivery %d of %d), retry in %ss: %r",
                self._durable, msg.subject, msg.metadata.sequence.stream, deliveries,
                self._max_deliveries, delay, exc,
            )  # fmt: skip
            await msg.nak(delay=delay)
            self._telemetry.settled("nak")
            return
        if reason is None:
            reason = f"gave up after {deliveries} deliveries: {type(exc).__name__}: {exc}"
        await self._dead_letter(msg, reason)

    async def _dead_letter(self, msg: Msg, reason: str) -> None:
        try:
            await send_to_dead_letters(self._js, msg, self._durable, reason)
        except Exception:
            log.exception(
                "consumer %s: dead-lettering failed; the message comes back", self._durable
            )
            await msg.nak(delay=backoff_delay(self._backoff_s, len(self._backoff_s)))
            self._telemetry.settled("nak")
            return
        await msg.term()
        self._telemetry.settled("dead_letter")
