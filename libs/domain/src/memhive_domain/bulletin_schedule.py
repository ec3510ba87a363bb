"""When a scope's bulletin is due: debounced on changes, never on a timer when nothing changed.

A pure state machine over the moments the caller passes in; the bulletin service feeds it
changes, renders what `due` returns, and sleeps until `next_wakeup` (or the next change).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memhive_domain.errors import FieldProblem, InvalidInput


@dataclass(frozen=True, slots=True)
class PendingChange:
    first_at: datetime  # the first change not yet covered by a render
    last_at: datetime


class BulletinSchedule:
    """A scope is due once it has been quiet for `quiet_period`, or once its first unrendered
    change is `max_delay` old, so a steady stream of changes still renders regularly."""

    def __init__(self, quiet_period: timedelta, max_delay: timedelta) -> None:
        if quiet_period <= timedelta(0) or max_delay < quiet_period:
            raise InvalidInput([FieldProblem("max_delay", "need 0 < quiet_period <= max_delay")])
        self.quiet_period = quiet_period
        self.max_delay = max_delay
        self._pending: dict[str, PendingChange] = {}

    def mark_changed(self, scope_key: str, now: datetime) -> None:
        held = self._pending.get(scope_key)
        if held is None:
            self._pending[scope_key] = PendingChange(now, now)
        else:
            self._pending[scope_key] = PendingChange(held.first_at, max(held.last_at, now))

    def due(self, now: datetime) -> list[str]:
        """Scope keys to render now, the longest due first (then by key): a caller that
        renders only some of them now (a budget) reaches the others next, none starves."""
        due = [(self._due_at(c), key) for key, c in self._pending.items() if self._due_at(c) <= now]
        return [key for _, key in sorted(due)]

    def mark_rendered(self, scope_key: str, now: datetime) -> None:
        """`now` is when the render read its inputs. A change marked after that moment is not
        in the render, so it stays pending; its max-delay clock counts from `now`, the
        earliest it can have happened."""
        held = self._pending.pop(scope_key, None)
        if held is not None and held.last_at > now:
            self._pending[scope_key] = PendingChange(max(now, held.first_at), held.last_at)

    def next_wakeup(self, now: datetime) -> datetime | None:
        """The earliest moment a pending scope falls due (`now` if one already is); None when
        nothing is pending, so the caller waits for a change instead of a timer."""
        earliest = min((self._due_at(c) for c in self._pending.values()), default=None)
        return None if earliest is None else max(earliest, now)

    def is_pending(self, scope_key: str) -> bool:
        return scope_key in self._pending

    def _due_at(self, change: PendingChange) -> datetime:
        return min(change.last_at + self.quiet_period, change.first_at + self.max_delay)
