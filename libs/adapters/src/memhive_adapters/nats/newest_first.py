"""Reading a stream newest first: JetStream reads forwards only, so walk back in windows.

Each window of stream sequences is read forwards by a throwaway consumer whose subject
filter selects what the caller wants on the server (a workspace, an action, a few event
kinds); the window's messages are then handed out newest first. Windows grow (x4) so a
sparse subject is found in a few reads, and one reader spans at most `max_span` stream
sequences: past that it pauses, and `resume_before` says where a next read continues.

Used by the audit log and the activity feed (`audit_log.py`, `activity_log.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from memhive_adapters.nats.unavailable import unavailable_as_port_error

FIRST_WINDOW = 256
MAX_WINDOW = 16_384
FETCH_BATCH = 256
# A throwaway reader's messages are there when it is made: waiting longer for them is a
# bus that does not answer (bus_liveness: slow after 1 s, then a probe), not a slow one.
FETCH_TIMEOUT_S = 2.0
INACTIVE_THRESHOLD_S = 60.0


@dataclass(frozen=True, slots=True)
class StoredMessage:
    sequence: int
    time: datetime  # when the stream stored it (the server's clock: ordered with sequence)
    subject: str
    data: bytes


class NewestFirst:
    """One stream's messages on `subjects`, newest first, strictly below `before` when given.

    `peek()` shows the next message (None: none left, or paused at `max_span`), `pop()`
    takes it. Never reads more than it is asked to peek at, so a caller that stops early
    leaves the rest of the stream unread.
    """

    def __init__(
        self,
        js: JetStreamContext,
        stream: str,
        subjects: Sequence[str],
        before: int | None = None,
        *,
        max_span: int,
        first_window: int = FIRST_WINDOW,
    ) -> None:
        self._js, self._stream, self._subjects = js, stream, tuple(subjects)
        self._before, self._max_span = before, max_span
        self._window = first_window
        self._buffer: list[StoredMessage] = []  # the current window's rest, newest first
        self._first = self._high = 0
        self._opened = False
        self.spanned = 0  # stream sequences walked so far

    async def peek(self) -> StoredMessage | None:
        if not self._opened:
            await self._open()
        while not self._buffer and self._has_older() and self.spanned < self._max_span:
            await self._read_window()
        return self._buffer[0] if self._buffer else None

    def pop(self) -> StoredMessage:
        return self._buffer.pop(0)

    @property
    def exhausted(self) -> bool:
        """Nothing older is left to read (as opposed to paused at the span bound)."""
        return self._opened and not self._buffer and not self._has_older()

    @property
    def resume_before(self) -> int | None:
        """Where a next reader continues (its `before`): everything at or above it was
        handed out or filtered away; None when nothing older is left."""
        if self._buffer:
            return self._buffer[0].sequence + 1
        if not self._opened:
            return self._before
        return self._high + 1 if self._has_older() else None

    def _has_older(self) -> bool:
        return self._high >= max(self._first, 1)

    async def _open(self) -> None:
        state = (await self._js.stream_info(self._stream)).state
        self._first, self._high = state.first_seq, state.last_seq
        if self._before is not None:
            self._high = min(self._high, self._before - 1)
        self._opened = True

    async def _read_window(self) -> None:
        size = min(self._window, self._max_span - self.spanned)  # never past the bound
        low = max(self._first, self._high - size + 1)
        self._buffer = list(reversed(await self._read(low, self._high)))
        self.spanned += self._high - low + 1
        self._high = low - 1
        self._window = min(self._window * 4, MAX_WINDOW)

    async def _read(self, low: int, high: int) -> list[StoredMessage]:
        async with unavailable_as_port_error(f"{self._stream} was not read"):
            return await self._read_span(low, high)

    async def _read_span(self, low: int, high: int) -> list[StoredMessage]:
        info = await self._js.add_consumer(self._stream, config=self._reader(low))
        try:
            if not info.num_pending:
                return []
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=self._stream)
            try:
                return await _read_until(sub, high)
            finally:
                await sub.unsubscribe()
        finally:
            await self._js.delete_consumer(self._stream, info.name)

    def _reader(self, start: int) -> ConsumerConfig:
        # Unnamed: the server names a throwaway reader (bus users may not name consumers).
        one = len(self._subjects) == 1
        return ConsumerConfig(
            filter_subject=self._subjects[0] if one else None,
            filter_subjects=None if one else list(self._subjects),
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=start,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=INACTIVE_THRESHOLD_S,
            mem_storage=True,
            num_replicas=1,
        )


async def _read_until(sub: JetStreamContext.PullSubscription, high: int) -> list[StoredMessage]:
    found: list[StoredMessage] = []
    while True:
        for msg in await sub.fetch(FETCH_BATCH, timeout=FETCH_TIMEOUT_S):
            meta = msg.metadata
            if meta.sequence.stream > high:
                return found
            found.append(StoredMessage(meta.sequence.stream, meta.timestamp, msg.subject, msg.data))
            if meta.num_pending == 0:
                return found
