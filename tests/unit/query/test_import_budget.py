"""The import budget: files in flight on one gateway, together, bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_query.use_cases.import_budget import ImportBudget, ImportsBusy

MAX = 100


def test_a_file_past_the_budget_is_refused_and_one_that_fits_is_taken() -> None:
    budget = ImportBudget(150, MAX)
    first = budget.take("100")
    with pytest.raises(ImportsBusy) as busy:
        budget.take("60")
    assert busy.value.retry_after_s == 5
    budget.take("50")
    assert budget.held == 150
    first.release()
    assert budget.held == 50


@pytest.mark.parametrize("length", [None, "", "abc", "-5", "1e3", "٣", "99999999999999999999"])
def test_an_unread_or_absent_length_counts_as_the_longest_file(length: str | None) -> None:
    budget = ImportBudget(150, MAX)
    budget.take(length)
    assert budget.held == MAX


def test_a_share_shrinks_to_the_body_read_and_is_given_back_once() -> None:
    budget = ImportBudget(150, MAX)
    held = budget.take(None)
    held.shrink_to(30)
    held.shrink_to(80)  # never grows
    assert budget.held == 30
    held.release()
    held.release()
    assert budget.held == 0


@given(st.lists(st.tuples(st.integers(0, 2 * MAX), st.integers(0, MAX), st.booleans())))
def test_the_budget_never_holds_more_than_it_may_nor_loses_a_byte(steps) -> None:
    budget, shares = ImportBudget(250, MAX), []
    for size, read, release in steps:
        try:
            shares.append(budget.take(str(size)))
        except ImportsBusy:
            assert budget.held + min(size, MAX) > 250
        else:
            shares[-1].shrink_to(read)
        assert 0 <= budget.held <= 250
        if release and shares:
            shares.pop(0).release()
    for share in shares:
        share.release()
    assert budget.held == 0
