"""The dashboard's narrowing by visibility, source and created days."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.refinement import Refinement, parse_refinement
from memhive_domain.scopes import Visibility
from memhive_domain.sources import Source

from tests.unit.domain.memory_factory import a_memory

MAY_2 = datetime(2026, 5, 2, 23, 59, tzinfo=UTC)


def test_nothing_asked_matches_everything() -> None:
    refinement = parse_refinement("", None, "", None)
    assert refinement.is_empty
    assert refinement.matches(a_memory("a", at=MAY_2))


def test_visibility_and_source_must_both_hold() -> None:
    refinement = parse_refinement("public", "note", None, None)
    assert refinement == Refinement(Visibility.PUBLIC, Source.NOTE)
    public_note = a_memory("a", at=MAY_2, visibility=Visibility.PUBLIC, source=Source.NOTE)
    assert refinement.matches(public_note)
    assert not refinement.matches(a_memory("b", at=MAY_2, source=Source.NOTE))
    assert not refinement.matches(a_memory("c", at=MAY_2, visibility=Visibility.PUBLIC))


def test_created_range_is_whole_utc_days_with_the_last_day_included() -> None:
    refinement = parse_refinement(None, None, "2026-05-01", "2026-05-02")
    assert refinement.matches(a_memory("a", at=MAY_2))
    assert refinement.matches(a_memory("b", at=datetime(2026, 5, 1, tzinfo=UTC)))
    assert not refinement.matches(a_memory("c", at=datetime(2026, 5, 3, tzinfo=UTC)))
    assert not refinement.matches(a_memory("d", at=datetime(2026, 4, 30, 23, 59, tzinfo=UTC)))


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_refinement("secret", "fax", "yesterday", "2026-13-01")
    assert [p.field for p in caught.value.problems] == [
        "visibility",
        "source",
        "created_from",
        "created_to",
    ]


def test_a_range_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_refinement(None, None, "2026-05-02", "2026-05-01")
    assert caught.value.problems[0].field == "created_to"
