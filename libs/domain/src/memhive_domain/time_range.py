"""Moments and time ranges a caller gives: checked once, the same for every entry point.

A range is half-open, `after <= t < before`, so consecutive ranges (this week, next week)
never share a moment and "last week" is exactly seven days. Either end may be open.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from memhive_domain.errors import FieldProblem


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes from callers are taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def checked_moment(
    field: str, moment: datetime | None, problems: list[FieldProblem]
) -> datetime | None:
    """The moment in UTC; a problem naming `field` when it is not a date and time or does
    not exist in UTC (`9999-12-31T23:59:59-12:00` is valid as written, past year 9999 in UTC)."""
    if moment is None:
        return None
    if not isinstance(moment, datetime):
        problems.append(FieldProblem(field, "must be a date and time (ISO 8601)"))
        return None
    try:
        return as_utc(moment)
    except OverflowError:
        problems.append(FieldProblem(field, "is outside the supported range in UTC"))
        return None


@dataclass(frozen=True, slots=True)
class TimeRange:
    after: datetime | None = None  # inclusive
    before: datetime | None = None  # exclusive

    def holds(self, moment: datetime) -> bool:
        return (self.after is None or self.after <= moment) and (
            self.before is None or moment < self.before
        )

    def overlaps(self, other: TimeRange) -> bool:
        """Whether some moment lies in both (half-open: touching ends do not overlap)."""
        starts_before_other_ends = (
            self.after is None or other.before is None or self.after < other.before
        )
        ends_after_other_starts = (
            self.before is None or other.after is None or other.after < self.before
        )
        return starts_before_other_ends and ends_after_other_starts


def checked_range(
    name: str, after: datetime | None, before: datetime | None, problems: list[FieldProblem]
) -> TimeRange | None:
    """`<name>_after` / `<name>_before` as a range; None when neither is given."""
    lower = checked_moment(f"{name}_after", after, problems)
    upper = checked_moment(f"{name}_before", before, problems)
    if lower is not None and upper is not None and lower >= upper:
        problems.append(FieldProblem(f"{name}_before", f"must be later than {name}_after"))
        return None
    if lower is None and upper is None:
        return None
    return TimeRange(lower, upper)
