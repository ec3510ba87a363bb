"""The bulletin scheduler on simulated time: renders only after changes, debounced."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from memhive_bulletin.refresher import Refresh
from memhive_bulletin.scheduler import MAX_CAUSES, BulletinScheduler
from memhive_domain.bulletin_schedule import BulletinSchedule
from memhive_domain.scopes import Scope, ScopeRef
from opentelemetry import trace
from opentelemetry.trace import SpanContext, TraceFlags

from tests.fakes import FixedClock

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GLOBAL = ScopeRef(Scope.GLOBAL)
PRODUCT = ScopeRef(Scope.PRODUCT, "acme")


class RecordingRefresh:
    def __init__(self, clock: FixedClock) -> None:
        self.clock = clock
        self.calls: list[tuple[str, str, datetime]] = []
        self.expiry: datetime | None = None
        self.fail = False
        self.traces: list[int] = []  # the trace each refresh ran in

    async def __call__(self, workspace_id: str, scope: ScopeRef) -> Refresh:
        self.calls.append((workspace_id, scope.key, self.clock.now()))
        self.traces.append(trace.get_current_span().get_span_context().trace_id)
        if self.fail:
            raise RuntimeError("store down")
        return Refresh(True, self.expiry)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def refresh(clock: FixedClock) -> RecordingRefresh:
    return RecordingRefresh(clock)


@pytest.fixture
def scheduler(clock: FixedClock, refresh: RecordingRefresh) -> BulletinScheduler:
    schedule = BulletinSchedule(timedelta(seconds=2), timedelta(seconds=30))
    return BulletinScheduler(refresh, schedule, clock)


async def run_for(scheduler: BulletinScheduler, clock: FixedClock, seconds: int) -> None:
    for _ in range(seconds * 10):
        clock.advance(0.1)
        await scheduler.run_due()


async def test_no_render_and_no_timer_over_100_idle_seconds(scheduler, clock, refresh) -> None:
    await run_for(scheduler, clock, 100)
    assert refresh.calls == []
    assert scheduler.next_wakeup() is None


async def test_idle_after_a_render_stays_idle(scheduler, clock, refresh) -> None:
    scheduler.mark_changed("ws", GLOBAL)
    await run_for(scheduler, clock, 3)
    await run_for(scheduler, clock, 100)
    assert len(refresh.calls) == 1
    assert scheduler.next_wakeup() is None


async def test_a_burst_of_50_changes_renders_once_after_the_quiet_period(
    scheduler, clock, refresh
) -> None:
    for _ in range(50):
        scheduler.mark_changed("ws", GLOBAL)
        clock.advance(0.1)
        await scheduler.run_due()
    last_change = clock.now() - timedelta(seconds=0.1)
    assert refresh.calls == []
    assert scheduler.next_wakeup() == last_change + timedelta(seconds=2)
    await run_for(scheduler, clock, 100)
    assert [(ws, key) for ws, key, _ in refresh.calls] == [("ws", "global")]
    assert refresh.calls[0][2] >= last_change + timedelta(seconds=2)


async def test_a_steady_stream_still_renders_by_the_max_delay(scheduler, clock, refresh) -> None:
    for _ in range(650):  # a change every 0.1 s for 65 s: never quiet
        scheduler.mark_changed("ws", GLOBAL)
        clock.advance(0.1)
        await scheduler.run_due()
    assert len(refresh.calls) == 2  # at 30 s and 60 s


async def test_scopes_and_workspaces_are_rendered_separately(scheduler, clock, refresh) -> None:
    scheduler.mark_changed("ws", GLOBAL)
    scheduler.mark_changed("ws", PRODUCT)
    scheduler.mark_changed("other", GLOBAL)
    await run_for(scheduler, clock, 3)
    assert sorted((ws, key) for ws, key, _ in refresh.calls) == [
        ("other", "global"),
        ("ws", "global"),
        ("ws", "product:acme"),
    ]


async def test_an_input_expiring_renders_the_scope_again(scheduler, clock, refresh) -> None:
    refresh.expiry = T0 + timedelta(seconds=50)
    scheduler.mark_changed("ws", GLOBAL)
    await run_for(scheduler, clock, 3)
    refresh.expiry = None
    assert scheduler.next_wakeup() == T0 + timedelta(seconds=50)
    await run_for(scheduler, clock, 100)
    assert len(refresh.calls) == 2
    assert refresh.calls[1][2] >= T0 + timedelta(seconds=50)
    assert scheduler.next_wakeup() is None


async def test_a_failed_refresh_is_retried(scheduler, clock, refresh) -> None:
    refresh.fail = True
    scheduler.mark_changed("ws", GLOBAL)
    await run_for(scheduler, clock, 3)
    refresh.fail = False
    await run_for(scheduler, clock, 3)
    assert len(refresh.calls) == 2
    await run_for(scheduler, clock, 10)
    assert len(refresh.calls) == 2


async def test_stopping_while_a_change_wakes_the_loop_still_stops(scheduler) -> None:
    """A change and the stop in the same tick: the loop must not swallow the cancellation
    (asyncio.wait_for on Python 3.11 can) and then wait forever for the next change; a
    hung stop() once held `memhive run` and the test stack's shutdown for minutes."""
    for _ in range(5):
        await scheduler.start()
        await asyncio.sleep(0)  # the loop waits for a change, with no timer
        scheduler.mark_changed("ws", ScopeRef(Scope.GLOBAL))
        stopping = asyncio.create_task(scheduler.stop())
        done, _ = await asyncio.wait({stopping}, timeout=1)
        assert stopping in done, "stop() hung"
        assert not [
            t for t in asyncio.all_tasks() if t.get_name() == "bulletin-scheduler" and not t.done()
        ]


def cause(trace_id: int) -> SpanContext:
    return SpanContext(trace_id, 1, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))


async def test_a_refresh_runs_in_the_trace_of_the_first_change_behind_it(
    scheduler, clock, refresh
) -> None:
    scheduler.mark_changed("ws", GLOBAL, [cause(11), cause(12)])
    scheduler.mark_changed("ws", GLOBAL, [cause(13)])
    scheduler.mark_changed("ws", PRODUCT)  # no event behind it (an expiry): a trace of its own
    await run_for(scheduler, clock, 3)
    assert dict(zip([c[1] for c in refresh.calls], refresh.traces, strict=True))["global"] == 11
    scheduler.mark_changed("ws", GLOBAL, [cause(21)])  # the next refresh, the next causes
    await run_for(scheduler, clock, 3)
    assert refresh.traces[-1] == 21


async def test_a_failed_refresh_keeps_its_causes_for_the_retry(scheduler, clock, refresh) -> None:
    refresh.fail = True
    scheduler.mark_changed("ws", GLOBAL, [cause(31)])
    await run_for(scheduler, clock, 3)
    refresh.fail = False
    await run_for(scheduler, clock, 3)
    assert refresh.traces[-2:] == [31, 31]


async def test_the_first_cause_stays_the_parent_past_the_bound(scheduler, clock, refresh) -> None:
    for n in range(1, 3 * MAX_CAUSES):
        scheduler.mark_changed("ws", GLOBAL, [cause(n)])
    await run_for(scheduler, clock, 3)
    assert refresh.traces == [1]


async def test_stopping_during_a_refresh_that_swallows_the_cancellation_still_stops(
    clock, refresh
) -> None:
    """Python 3.11's asyncio.wait_for (nats-py's requests use it) returns a result that
    arrived in the same tick as a cancellation and drops the cancellation: the refresh then
    goes on as if never cancelled. stop() must end the loop all the same; it held the test
    stack's shutdown for minutes after a stalled bus."""
    release = asyncio.Event()

    async def swallowing(workspace_id: str, scope: ScopeRef) -> Refresh:
        try:
            await release.wait()
        except asyncio.CancelledError:
            asyncio.current_task().uncancel()  # as wait_for's bug leaves it
        return Refresh(True, None)

    schedule = BulletinSchedule(timedelta(seconds=0.01), timedelta(seconds=0.02))
    scheduler = BulletinScheduler(swallowing, schedule, clock)
    await scheduler.start()
    scheduler.mark_changed("ws", GLOBAL)
    clock.advance(1)
    scheduler.mark_changed("ws", GLOBAL)  # due now: the loop is in the refresh
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(scheduler.stop())
    done, _ = await asyncio.wait({stopping}, timeout=1)
    assert stopping in done, "stop() hung"


class SlowRefresh(RecordingRefresh):
    """Each refresh takes `seconds` of the clock, as reading a large scope does."""

    def __init__(self, clock: FixedClock, seconds: float) -> None:
        super().__init__(clock)
        self.seconds = seconds

    async def __call__(self, workspace_id: str, scope: ScopeRef) -> Refresh:
        outcome = await super().__call__(workspace_id, scope)
        self.clock.advance(self.seconds)
        return outcome


def budgeted(clock: FixedClock, refresh: RecordingRefresh, share: float) -> BulletinScheduler:
    schedule = BulletinSchedule(timedelta(seconds=2), timedelta(seconds=30))
    return BulletinScheduler(refresh, schedule, clock, max_share=share)


async def test_refreshes_take_at_most_their_share_while_scopes_keep_changing(clock) -> None:
    slow = SlowRefresh(clock, 1.0)
    scheduler = budgeted(clock, slow, share=0.2)
    scopes = [ScopeRef(Scope.PRODUCT, f"p{i}") for i in range(20)]
    started = clock.now()
    for _ in range(3000):  # 300 s of saves into every scope, 10 a second
        for scope in scopes:
            scheduler.mark_changed("ws", scope)
        clock.advance(0.1)
        await scheduler.run_due()
    busy = len(slow.calls) * slow.seconds
    elapsed = (clock.now() - started).total_seconds()
    assert busy / elapsed <= 0.2 + slow.seconds / elapsed  # the last refresh may overrun
    refreshed = Counter(key for _, key, _ in slow.calls)
    assert set(refreshed) == {s.key for s in scopes}  # yet every scope, in turn
    assert max(refreshed.values()) - min(refreshed.values()) <= 1


async def test_after_a_slow_refresh_the_next_waits_and_the_wakeup_says_when(clock) -> None:
    slow = SlowRefresh(clock, 1.0)
    scheduler = budgeted(clock, slow, share=0.2)
    scheduler.mark_changed("ws", GLOBAL)
    scheduler.mark_changed("ws", PRODUCT)
    clock.advance(2)
    assert await scheduler.run_due() == 1  # the first took 1 s: 4 s of rest follow
    rested_until = clock.now() + timedelta(seconds=4)
    assert scheduler.next_wakeup() == rested_until
    clock.advance(3.9)
    assert await scheduler.run_due() == 0
    clock.advance(0.1)
    assert await scheduler.run_due() == 1
    assert [key for _, key, _ in slow.calls] == sorted([GLOBAL.key, PRODUCT.key])


async def test_without_a_share_every_due_scope_is_refreshed_at_once(clock) -> None:
    slow = SlowRefresh(clock, 1.0)
    scheduler = budgeted(clock, slow, share=1.0)
    scheduler.mark_changed("ws", GLOBAL)
    scheduler.mark_changed("ws", PRODUCT)
    clock.advance(2)
    assert await scheduler.run_due() == 2


def test_a_share_outside_zero_to_one_is_refused(clock, refresh) -> None:
    with pytest.raises(ValueError):
        budgeted(clock, refresh, share=0)
    with pytest.raises(ValueError):
        budgeted(clock, refresh, share=1.5)
