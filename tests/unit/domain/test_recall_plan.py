from datetime import UTC, datetime

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest, plan_recall
from memhive_domain.time_range import TimeRange

NOW = datetime(2026, 6, 1, tzinfo=UTC)
WHO = Principal("ws", "agent")


def plan(query: str = "deploys", **fields):
    return plan_recall(query, SelectionRequest(), None, principal=WHO, now=NOW, **fields)


def test_a_recall_knows_the_times_its_query_names() -> None:
    assert plan("what shipped in May 2026?").named_times == (
        TimeRange(datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)),
    )
    assert plan("what shipped?").named_times == ()


def test_min_confidence_is_zero_unless_given_and_must_be_a_share() -> None:
    assert plan().min_confidence == 0.0
    assert plan(min_confidence=0.25).min_confidence == 0.25
    for bad in (-0.1, 1.5, True, "high"):
        with pytest.raises(InvalidInput) as refused:
            plan(min_confidence=bad)
        assert "min_confidence" in str(refused.value.problems)


def test_a_recall_knows_the_people_its_query_names_and_whether_it_asks_when() -> None:
    planned = plan("When did Melanie run a charity race?")
    assert (planned.names, planned.wants_time) == (frozenset({"melanie"}), True)
    assert (plan("what shipped?").names, plan("what shipped?").wants_time) == (frozenset(), False)
