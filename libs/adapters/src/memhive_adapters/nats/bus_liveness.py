"""Whether the bus answers, so a stalled bus costs a caller one short wait, not one per call.

A connection that is open but not answering (the server stopped with SIGSTOP, its disk
hung, a network that drops packets) looks healthy to nats-py until its pings go unanswered,
minutes later; each request then waits its whole timeout, one after the other. So:

- A request still unanswered after `SLOW_S` (or one that timed out) makes the bus
  *suspect*: one probe is sent (a request the server answers itself) with a short deadline.
  While it is out, new requests also end when it fails. A bus that is only slow answers the
  probe, and its requests go on to their own timeout.
- No answer to the probe: the bus is *stalled*. Every request fails at once (BusStalled)
  and a probe goes out every `interval_s` until one is answered; the first answer ends it.
- `answering()` (readiness) is False while stalled; otherwise it sends a probe unless a
  request was answered within `fresh_s`, so frequent readiness checks stay cheap.

Requests are watched by one timer per connection, armed while any is in flight, checking
the oldest: with a timer per request the client's checks cost 6.5 µs of CPU per request,
this way 1.3 µs (docs/benchmarks.md, "Faults").
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from memhive_adapters.nats.unavailable import BusStalled

log = logging.getLogger(__name__)

T = TypeVar("T")

SLOW_S = 1.0
PROBE_DEADLINE_S = 2.0
PROBE_INTERVAL_S = 0.5
FRESH_S = 1.0

Probe = Callable[[float], Awaitable[object]]


class BusLiveness:
    def __init__(
        self,
        probe: Probe,
        *,
        deadline_s: float = PROBE_DEADLINE_S,
        interval_s: float = PROBE_INTERVAL_S,
        fresh_s: float = FRESH_S,
        slow_s: float = SLOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`probe(deadline_s)` returns once the bus answered, or raises."""
        self._probe, self._clock = probe, clock
        self._deadline_s, self._interval_s, self._fresh_s = deadline_s, interval_s, fresh_s
        self._slow_s = slow_s
        self._in_flight: dict[int, float] = {}  # request -> when it was sent, oldest first
        self._ids = itertools.count()
        self._watch: asyncio.TimerHandle | None = None
        self._last_answer = float("-inf")
        self._stalled_since: float | None = None
        self._stalled = asyncio.Event()
        self._probing: asyncio.Task[None] | None = None
        self._closed = False
        self._stall_callbacks: list[Callable[[], None]] = []

    @property
    def stalled(self) -> bool:
        return self._stalled_since is not None

    @property
    def suspect(self) -> bool:
        """A probe is out (after a timeout, or while stalled)."""
        return self._probing is not None and not self._probing.done()

    def answered(self) -> None:
        self._last_answer = self._clock()

    def sent(self) -> int:
        """A request is on its way; `settled(its id)` once it is answered or has failed."""
        request = next(self._ids)
        self._in_flight[request] = self._clock()
        if self._watch is None:
            self._watch = asyncio.get_running_loop().call_later(self._slow_s, self._check_slow)
        return request

    def settled(self, request: int) -> None:
        self._in_flight.pop(request, None)

    def _check_slow(self) -> None:
        """The oldest request in flight unanswered for `slow_s`: ask the bus."""
        self._watch = None
        if not self._in_flight or self._closed:
            return
        waited = self._clock() - next(iter(self._in_flight.values()))
        if waited >= self._slow_s:
            self.unanswered()
        loop = asyncio.get_running_loop()
        self._watch = loop.call_later(max(self._slow_s - waited, 0.1), self._check_slow)

    def raise_if_stalled(self) -> None:
        if self._stalled_since is not None:
            raise self.stalled_error()

    def stalled_error(self) -> BusStalled:
        waited = self._clock() - (self._stalled_since or self._clock())
        return BusStalled(
            f"the bus has not answered for {waited:.0f} s; retry once it does (it is asked "
            f"every {self._interval_s:g} s)"
        )

    def unanswered(self) -> None:
        """A request is slow to be answered: ask the bus whether it answers at all."""
        if not self.suspect and not self._closed:
            self._probing = asyncio.get_running_loop().create_task(self._until_answered())

    async def bounded(self, call: Awaitable[T]) -> T:
        """`call`, ended early with BusStalled if the probe out now finds the bus stalled."""
        running = asyncio.ensure_future(call)
        try:
            answered = await self._first_of(running)
        except BaseException:  # the caller was cancelled: so is its call
            running.cancel()
            raise
        if not answered:
            running.cancel()
            raise self.stalled_error()
        return running.result()

    def on_stall(self, callback: Callable[[], None]) -> None:
        """`callback()` each time the bus becomes stalled (waits that cannot end otherwise)."""
        self._stall_callbacks.append(callback)

    async def answering(self) -> bool:
        if self.stalled or self._closed:
            return False
        if self._clock() - self._last_answer < self._fresh_s:
            return True
        self.unanswered()  # the same question
        assert self._probing is not None
        await self._first_of(self._probing)
        return not self.stalled

    async def close(self) -> None:
        """No more probes (the connection is closing)."""
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        probing, self._probing = self._probing, None
        if probing is not None:
            probing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await probing

    async def _first_of(self, task: asyncio.Future) -> bool:
        """Waits for `task` or for a stall, whichever comes first; True if `task` is done."""
        stalled = asyncio.ensure_future(self._stalled.wait())
        try:
            await asyncio.wait({task, stalled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stalled.cancel()
        return task.done()

    async def _until_answered(self) -> None:
        """Returns at the first answer; without one the bus is stalled until it answers."""
        if await self._asked():
            return
        self._enter_stall()
        while not await self._asked():  # noqa: ASYNC110 - each turn asks the bus
            await asyncio.sleep(self._interval_s)
        self._leave_stall()

    async def _asked(self) -> bool:
        try:
            await self._probe(self._deadline_s)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - no answer (timeout, connection down): not answering
            return False
        self.answered()
        return True

    def _enter_stall(self) -> None:
        self._stalled_since = self._clock()
        self._stalled.set()
        log.warning("the bus does not answer; refusing bus calls until it does")
        for callback in self._stall_callbacks:
            try:
                callback()
            except Exception:  # one listener's bug must not keep the stall from the others
                log.exception("a stall callback failed")

    def _leave_stall(self) -> None:
        waited = self._clock() - (self._stalled_since or self._clock())
        self._stalled_since = None
        self._stalled.clear()
        log.info("the bus answers again after %.1f s", waited)
