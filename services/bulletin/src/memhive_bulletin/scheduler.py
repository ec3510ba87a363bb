"""When scopes are re-rendered: debounced on change (BulletinSchedule), and at input expiry.

Nothing pending means no timer at all: the loop waits for the next change.

Refreshes take at most `max_share` of the time while changes keep coming: after a refresh
that took d, the next one (of any scope) waits d x (1 - share) / share. A refresh reads up
to `max_memories` records of its scope; under a steady stream of saves into many large
scopes (a bulk load) every scope falls due each `max_delay`, and unbounded they held the
process's one thread most of the time, starving the consumers that share it
(docs/benchmarks.md, "The bulletin's share under a bulk load"). Bulletins are briefings,
not read-your-writes: they may lag further behind while the scopes churn.

A refresh runs in the trace of the first change that called for it, linked to the others (at
most MAX_CAUSES kept per scope), so its `bulletin.refreshed` event carries the trace of a save
like every other event; a refresh at an expiry, which no event caused, starts a trace of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from memhive_domain.bulletin_schedule import BulletinSchedule
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock, RetryLater
from memhive_telemetry.propagation import TraceCause, span_caused_by

from memhive_bulletin.refresher import Refresh

log = logging.getLogger(__name__)

MAX_CAUSES = 16

RefreshScope = Callable[[str, ScopeRef], Awaitable[Refresh]]
ScopeId = tuple[str, ScopeRef]  # (workspace id, scope)


class BulletinScheduler:
    def __init__(
        self,
        refresh: RefreshScope,
        schedule: BulletinSchedule,
        clock: Clock,
        *,
        max_share: float = 1.0,
    ) -> None:
        """`max_share`: the most of the time refreshes may take (1: no bound)."""
        if not 0 < max_share <= 1:
            raise ValueError("max_share must be in (0, 1]")
        self._refresh, self._schedule, self._clock = refresh, schedule, clock
        self._rest_per_busy = (1 - max_share) / max_share
        self._resume_at: datetime | None = None  # no refresh before this (the budget)
        self._scopes: dict[str, ScopeId] = {}
        self._expiries: dict[str, datetime] = {}
        self._causes: dict[str, list[TraceCause]] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def mark_changed(
        self, workspace_id: str, scope: ScopeRef, causes: Sequence[TraceCause] = ()
    ) -> None:
        """`causes`: the traces of the events that changed it (its refresh joins them)."""
        key = _key(workspace_id, scope)
        self._scopes[key] = (workspace_id, scope)
        kept = self._causes.setdefault(key, [])
        kept += causes[: MAX_CAUSES - len(kept)]
        self._schedule.mark_changed(key, self._clock.now())
        self._changed.set()

    def next_wakeup(self) -> datetime | None:
        moments = [self._schedule.next_wakeup(self._clock.now()), *self._expiries.values()]
        earliest = min((m for m in moments if m is not None), default=None)
        if earliest is None or self._resume_at is None:
            return earliest
        return max(earliest, self._resume_at)

    async def run_due(self) -> int:
        """Refresh the scopes due now, as far as the budget allows (the rest stay due);
        returns how many were refreshed (rendered or not)."""
        self._mark_expired(self._clock.now())
        refreshed = 0
        for key in self._schedule.due(self._clock.now()):
            if self._resting():
                break
            await self._refresh_one(key)
            refreshed += 1
        return refreshed

    def _resting(self) -> bool:
        return self._resume_at is not None and self._clock.now() < self._resume_at

    async def start(self) -> None:
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="bulletin-scheduler")

    async def stop(self) -> None:
        """Cancels the loop, and tells it too: a cancellation can be lost on the way (Python
        3.11's asyncio.wait_for, inside nats-py's requests, drops one that arrives with a
        result), and the loop would then wait for a change forever."""
        task, self._task = self._task, None
        if task is not None:
            self._stopping = True
            self._changed.set()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while not self._stopping:
            self._changed.clear()
            await self.run_due()
            await self._sleep_until(self.next_wakeup())

    async def _sleep_until(self, wakeup: datetime | None) -> None:
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns the result when the
        # event is set in the same tick as a cancellation, so stop() would be swallowed and
        # the loop would then wait for a next change that never comes.
        delay = None if wakeup is None else (wakeup - self._clock.now()).total_seconds()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(None if delay is None else max(delay, 0)):
                await self._changed.wait()

    async def _refresh_one(self, key: str) -> None:
        started = self._clock.now()
        try:
            await self._refresh_scope(key, started)
        finally:
            took = self._clock.now() - started
            self._resume_at = self._clock.now() + took * self._rest_per_busy

    async def _refresh_scope(self, key: str, started: datetime) -> None:
        workspace_id, scope = self._scopes[key]
        causes = self._causes.pop(key, [])
        try:
            with span_caused_by("bulletin refresh", causes, source=__name__,
                                attributes={"memhive.scope": key}):  # fmt: skip
                outcome = await self._refresh(workspace_id, scope)
        except RetryLater as exc:  # the bus or its disk, for now: one line
            log.warning("bulletin %s: refresh failed; will retry: %s", key, exc)
            self._retry_later(key, started, causes)
            return
        except Exception:
            log.exception("bulletin %s: refresh failed; will retry", key)
            self._retry_later(key, started, causes)
            return
        self._schedule.mark_rendered(key, started)
        self._expiries.pop(key, None)
        if outcome.next_expiry is not None:
            self._expiries[key] = outcome.next_expiry

    def _retry_later(self, key: str, started: datetime, causes: list[TraceCause]) -> None:
        """The scope stays changed: retried after another quiet period, for the same causes."""
        self._causes[key] = [*causes, *self._causes.get(key, [])][:MAX_CAUSES]
        self._schedule.mark_rendered(key, started)
        self._schedule.mark_changed(key, self._clock.now())

    def _mark_expired(self, now: datetime) -> None:
        for key, moment in list(self._expiries.items()):
            if moment <= now:
                del self._expiries[key]
                self._schedule.mark_changed(key, moment)


def _key(workspace_id: str, scope: ScopeRef) -> str:
    return f"{workspace_id}/{scope.key}"
