"""The conditions a filter becomes mean what the filter means, on the fields lanes store, and
on the fields lanes built before the scope tree stored (no reindex needed on upgrade)."""

from __future__ import annotations

import pytest
from memhive_adapters.lane_conditions import (
    conditions_of,
    holds,
    stored_fields,
)
from memhive_domain.memory import Memory
from memhive_domain.selection import is_selected

from tests.integration.lanes.filter_cases import FILTER_CASES, FilterCase, population
from tests.integration.lanes.memories import NOW


def selected(case: FilterCase, fields_of) -> set[str]:
    conditions = conditions_of(case.memory_filter)
    return {
        name
        for name, memory in population().items()
        if all(holds(c, fields_of(memory)) for c in conditions)
    }


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
def test_conditions_select_what_the_filter_means(case: FilterCase) -> None:
    assert selected(case, stored_fields) == set(case.expected)


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
def test_is_selected_agrees_with_the_lanes(case: FilterCase) -> None:
    now = case.memory_filter.live_at or NOW
    chosen = {n for n, m in population().items() if is_selected(m, case.memory_filter, now)}
    assert chosen == set(case.expected)


def legacy_fields(memory: Memory) -> dict[str, object]:
    """What a lane built before the scope tree stored: `scope` was the plain value."""
    return stored_fields(memory) | {"scope": memory.scope.value}


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
def test_pre_tree_documents_answer_as_before(case: FilterCase) -> None:
    # Only first-level memories existed before the tree.
    first_level = {n for n, m in population().items() if not m.scope_ref.is_nested}
    assert selected(case, legacy_fields) & first_level == set(case.expected) & first_level
