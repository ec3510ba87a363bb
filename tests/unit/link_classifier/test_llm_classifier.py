from __future__ import annotations

import pytest
from memhive_application.spend_guard import SpendGuard
from memhive_domain.edges import EdgeKind
from memhive_link_classifier.fallback import NearDuplicateClassifier
from memhive_link_classifier.llm_classifier import LlmLinkClassifier
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_ports import LlmUnavailable, MalformedOutput

from tests.fakes import FixedClock
from tests.unit.link_classifier.fakes import Metrics, ScriptedChat, memory

NEW = memory("new", "Staging runs Postgres 16", days=5)
OLD = memory("old", "Staging runs Postgres 15", days=1)
TWIN = memory("twin", "Staging runs Postgres 16.", days=2)
NEIGHBOURS = [(TWIN, 0.97), (OLD, 0.9)]
UPDATES_OLD = {"links": [{"memory": 2, "relation": "updates", "confidence": 0.9}]}


def classifier(chat: ScriptedChat, metrics: Metrics, *, calls: int = 10, tokens: int = 10_000):
    guard = SpendGuard(FixedClock(), calls_per_minute=calls, tokens_per_day=tokens)
    counters = ClassifierMetrics(metrics.provider.get_meter(METER_NAME))
    fallback = NearDuplicateClassifier(0.95)
    return LlmLinkClassifier(chat, guard, fallback, counters, max_output_tokens=100)


async def test_one_call_covers_every_neighbour() -> None:
    chat, metrics = ScriptedChat([UPDATES_OLD]), Metrics.collecting()

    proposals = await classifier(chat, metrics).classify(NEW, NEIGHBOURS)

    assert [(p.src_id, p.dst_id, p.kind) for p in proposals] == [
        ("new", "old", EdgeKind.UPDATES),
        ("new", "twin", EdgeKind.RELATED_TO),  # unanswered, but a near-duplicate: linked
    ]
    assert proposals[1].rationale.startswith("near-duplicate text (cosine 0.970")
    assert len(chat.questions) == 1
    assert "[1]" in chat.questions[0][1] and "[2]" in chat.questions[0][1]
    assert metrics.totals() == {"llm_calls": 1, "llm_tokens": 150}


async def test_the_models_relation_for_a_near_duplicate_stands_alone() -> None:
    twin_updated = {"links": [{"memory": 1, "relation": "updates", "confidence": 0.8}]}
    chat, metrics = ScriptedChat([twin_updated]), Metrics.collecting()

    proposals = await classifier(chat, metrics).classify(NEW, NEIGHBOURS)

    assert [(p.src_id, p.dst_id, p.kind) for p in proposals] == [("new", "twin", EdgeKind.UPDATES)]


async def test_no_neighbours_make_no_call() -> None:
    chat, metrics = ScriptedChat([UPDATES_OLD]), Metrics.collecting()

    assert await classifier(chat, metrics).classify(NEW, []) == []
    assert chat.questions == []


async def test_over_the_call_bound_the_fallback_answers_and_the_refusal_is_counted() -> None:
    chat, metrics = ScriptedChat([UPDATES_OLD]), Metrics.collecting()
    bounded = classifier(chat, metrics, calls=1)

    await bounded.classify(NEW, NEIGHBOURS)
    fallback = await bounded.classify(NEW, NEIGHBOURS)

    assert [(p.dst_id, p.kind) for p in fallback] == [("twin", EdgeKind.RELATED_TO)]
    assert len(chat.questions) == 1
    assert metrics.totals()["budget_refusals"] == 1


async def test_over_the_token_bound_no_call_is_made() -> None:
    chat, metrics = ScriptedChat([UPDATES_OLD]), Metrics.collecting()

    await classifier(chat, metrics, tokens=50).classify(NEW, NEIGHBOURS)

    assert chat.questions == []
    assert metrics.totals() == {"budget_refusals": 1}


@pytest.mark.parametrize(
    "failure",
    [{"links": [{"memory": 9, "relation": "updates", "confidence": 1}]}, MalformedOutput("x", 7)],
)
async def test_a_malformed_answer_raises_and_is_counted(failure) -> None:
    chat, metrics = ScriptedChat([failure]), Metrics.collecting()

    with pytest.raises(MalformedOutput):
        await classifier(chat, metrics).classify(NEW, NEIGHBOURS)

    assert metrics.totals()["llm_failures"] == 1


async def test_an_unavailable_model_raises_for_a_retry() -> None:
    chat, metrics = ScriptedChat([LlmUnavailable("RateLimitError")]), Metrics.collecting()

    with pytest.raises(LlmUnavailable):
        await classifier(chat, metrics).classify(NEW, NEIGHBOURS)

    assert metrics.totals() == {"llm_calls": 1, "llm_failures": 1}
