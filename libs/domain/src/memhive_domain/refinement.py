"""Narrowing that the lanes do not index yet (visibility, source, created range): a rule
applied to memories already selected by a `MemoryFilter`, e.g. by the dashboard's listing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.memory import Memory
from memhive_domain.scopes import Visibility
from memhive_domain.sources import Source


@dataclass(frozen=True, slots=True)
class Refinement:
    visibility: Visibility | None = None
    source: Source | None = None
    created_from: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive

    @property
    def is_empty(self) -> bool:
        return self == Refinement()

    def matches(self, memory: Memory) -> bool:
        created = _aware(memory.created_at)
        return (
            (self.visibility is None or memory.visibility is self.visibility)
            and (self.source is None or memory.source is self.source)
            and (self.created_from is None or created >= self.created_from)
            and (self.created_before is None or created < self.created_before)
        )


def parse_refinement(
    visibility: str | None,
    source: str | None,
    created_from: str | None,
    created_to: str | None,
    problems: list[FieldProblem] | None = None,
) -> Refinement:
    """Dates are whole UTC days (YYYY-MM-DD), `created_to` included. Every problem at once:
    raised, or added to `problems` when the caller collects them with other checks."""
    collect = problems is not None
    problems = [] if problems is None else problems
    parsed_visibility = (
        parse_enum(Visibility, visibility, "visibility", problems) if visibility else None
    )
    parsed_source = parse_enum(Source, source, "source", problems) if source else None
    start = _day(created_from, "created_from", problems)
    end = _day(created_to, "created_to", problems)
    if start and end and end < start:
        problems.append(FieldProblem("created_to", "is before created_from"))
    if problems and not collect:
        raise InvalidInput(problems)
    return Refinement(
        visibility=parsed_visibility,
        source=parsed_source,
        created_from=None if start is None else _midnight(start),
        created_before=None if end is None else _midnight(end + timedelta(days=1)),
    )


def _day(value: str | None, field: str, problems: list[FieldProblem]) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        problems.append(FieldProblem(field, f"{value!r} is not a date (YYYY-MM-DD)"))
        return None


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
