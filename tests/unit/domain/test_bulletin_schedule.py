"""The bulletin debounce over simulated time: renders follow changes, never a timer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from memhive_domain.bulletin_schedule import BulletinSchedule
from memhive_domain.errors import InvalidInput

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
QUIET = timedelta(seconds=2)
MAX_DELAY = timedelta(seconds=30)


def at(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def schedule() -> BulletinSchedule:
    return BulletinSchedule(quiet_period=QUIET, max_delay=MAX_DELAY)


def run_service(
    plan: BulletinSchedule, changes: list[tuple[int, str]], until_ms: int
) -> list[tuple[int, str]]:
    """Drive the schedule as the service does: sleep until the next change or next_wakeup,
    mark changes, render what is due. Returns (ms, scope) for every render."""
    pending = sorted(changes)
    renders: list[tuple[int, str]] = []
    now = 0
    while True:
        wake = plan.next_wakeup(at(now))
        moments = [p[0] for p in pending[:1]]
        if wake is not None:
            moments.append((wake - T0) // timedelta(milliseconds=1))
        if not moments or min(moments) > until_ms:
            return renders
        now = min(moments)
        while pending and pending[0][0] <= now:
            moment, scope_key = pending.pop(0)
            plan.mark_changed(scope_key, at(moment))
        for scope_key in plan.due(at(now)):
            renders.append((now, scope_key))
            plan.mark_rendered(scope_key, at(now))


def test_idle_for_100_seconds_renders_nothing_and_never_wakes() -> None:
    plan = schedule()
    for second in range(101):
        assert plan.due(at(second * 1000)) == []
        assert plan.next_wakeup(at(second * 1000)) is None
    assert run_service(plan, [], until_ms=100_000) == []


def test_a_burst_of_50_changes_renders_once_after_the_quiet_period() -> None:
    burst = [(ms, "global") for ms in range(0, 1000, 20)]
    assert len(burst) == 50
    renders = run_service(schedule(), burst, until_ms=100_000)
    assert renders == [(980 + 2000, "global")]


def test_continuous_changes_render_at_max_delay_then_once_quiet() -> None:
    every_second = [(s * 1000, "global") for s in range(100)]
    renders = run_service(schedule(), every_second, until_ms=200_000)
    # each render covers the change of its own second; the next clock starts a second later
    assert renders == [
        (30_000, "global"),
        (61_000, "global"),
        (92_000, "global"),
        (99_000 + 2000, "global"),
    ]


def test_scopes_are_debounced_independently() -> None:
    changes = [(0, "global"), (500, "product:a"), (1500, "product:a")]
    renders = run_service(schedule(), changes, until_ms=100_000)
    assert renders == [(2000, "global"), (3500, "product:a")]


def test_not_due_before_the_quiet_period() -> None:
    plan = schedule()
    plan.mark_changed("global", at(0))
    assert plan.due(at(1999)) == []
    assert plan.next_wakeup(at(1000)) == at(2000)
    assert plan.due(at(2000)) == ["global"]


def test_rendering_clears_the_scope_until_the_next_change() -> None:
    plan = schedule()
    plan.mark_changed("global", at(0))
    plan.mark_rendered("global", at(2000))
    assert not plan.is_pending("global")
    assert plan.next_wakeup(at(2000)) is None
    assert plan.due(at(60_000)) == []


def test_a_change_after_the_render_read_its_inputs_stays_pending() -> None:
    plan = schedule()
    plan.mark_changed("global", at(0))
    plan.mark_changed("global", at(2500))  # arrived while the render was running
    plan.mark_rendered("global", at(2000))
    assert plan.is_pending("global")
    assert plan.next_wakeup(at(2500)) == at(4500)


def test_an_overdue_scope_wakes_immediately() -> None:
    plan = schedule()
    plan.mark_changed("global", at(0))
    assert plan.next_wakeup(at(9000)) == at(9000)


@pytest.mark.parametrize(
    ("quiet", "max_delay"),
    [(timedelta(0), timedelta(seconds=5)), (timedelta(seconds=5), timedelta(seconds=4))],
)
def test_rejects_inconsistent_periods(quiet: timedelta, max_delay: timedelta) -> None:
    with pytest.raises(InvalidInput):
        BulletinSchedule(quiet_period=quiet, max_delay=max_delay)
