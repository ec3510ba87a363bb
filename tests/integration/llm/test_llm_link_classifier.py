"""The LLM link classifier over the real litellm adapter and a loopback chat server."""

from __future__ import annotations

import pytest
from memhive_domain.edges import EdgeKind
from memhive_link_classifier.app import build_link_classifier
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_ports import LlmUnavailable, MalformedOutput
from memhive_settings import MemhiveSettings

from tests.fakes import FixedClock
from tests.integration.llm.chat_server import (
    LITELLM_WARNINGS,
    Reply,
    Stall,
    Status,
    links,
    running_chat_server,
)
from tests.unit.link_classifier.fakes import Metrics, memory

pytestmark = LITELLM_WARNINGS

NEW = memory("new", "The iOS app now targets Swift 6", days=9)
OLD = memory("old", "The iOS app targets Swift 5", days=1)
TWIN = memory("twin", "The iOS app now targets Swift 6.", days=3)
NEIGHBOURS = [(TWIN, 0.97), (OLD, 0.80)]  # a near-duplicate (>= 0.85) and a neighbour


def classifier(url: str, metrics: Metrics, **llm):
    settings = MemhiveSettings(
        llm={"model": "openai/stub", "api_base": url, "api_key": "sk-test", **llm}
    )
    counters = ClassifierMetrics(metrics.provider.get_meter(METER_NAME))
    return build_link_classifier(settings, FixedClock(), counters)


async def test_good_output_becomes_proposals_with_tokens_counted() -> None:
    answer = links(
        {"memory": 1, "relation": "related_to", "confidence": 0.7, "rationale": "same"},
        {"memory": 2, "relation": "updates", "confidence": 0.95, "rationale": "5 -> 6"},
    )
    metrics = Metrics.collecting()
    async with running_chat_server(answer) as server:
        proposals = await classifier(server.url, metrics).classify(NEW, NEIGHBOURS)

    assert [(p.src_id, p.dst_id, p.kind, p.weight, p.rationale) for p in proposals] == [
        ("new", "twin", EdgeKind.RELATED_TO, 0.7, "same"),
        ("new", "old", EdgeKind.UPDATES, 0.95, "5 -> 6"),
    ]
    assert len(server.requests) == 1
    assert "The iOS app targets Swift 5" in server.requests[0]["messages"][1]["content"]
    assert metrics.totals() == {"llm_calls": 1, "llm_tokens": 150}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply("I think memory 2 is outdated."), "not JSON"),
        (Reply('{"edges": []}'), 'no "links" list'),
        (links({"memory": 3, "relation": "updates", "confidence": 1}), "from 1 to 2, got 3"),
        (links({"memory": 1, "relation": "supersedes", "confidence": 1}), "relation must be"),
    ],
)
async def test_malformed_output_raises_with_the_reason(reply: Reply, reason: str) -> None:
    metrics = Metrics.collecting()
    async with running_chat_server(reply) as server:
        with pytest.raises(MalformedOutput, match=reason):
            await classifier(server.url, metrics).classify(NEW, NEIGHBOURS)

    assert metrics.totals()["llm_failures"] == 1


@pytest.mark.parametrize("failure", [Status(429, "rate limited"), Stall()])
async def test_rate_limits_and_timeouts_raise_for_a_retry(failure) -> None:
    metrics = Metrics.collecting()
    async with running_chat_server(failure) as server:
        with pytest.raises(LlmUnavailable):
            await classifier(server.url, metrics, timeout_s=0.5).classify(NEW, NEIGHBOURS)

    assert metrics.totals() == {"llm_calls": 1, "llm_failures": 1}


async def test_past_the_spend_bound_the_fallback_answers_without_a_call() -> None:
    answer = links({"memory": 2, "relation": "updates", "confidence": 0.9})
    metrics = Metrics.collecting()
    async with running_chat_server(answer) as server:
        bounded = classifier(server.url, metrics, calls_per_minute=1)
        first = await bounded.classify(NEW, NEIGHBOURS)
        second = await bounded.classify(NEW, NEIGHBOURS)

    # The model's answer, and the near-duplicate it left unlinked (always linked).
    assert [(p.dst_id, p.kind) for p in first] == [
        ("old", EdgeKind.UPDATES),
        ("twin", EdgeKind.RELATED_TO),
    ]
    assert [(p.dst_id, p.kind) for p in second] == [("twin", EdgeKind.RELATED_TO)]
    assert len(server.requests) == 1
    assert metrics.totals()["budget_refusals"] == 1


async def test_without_a_model_only_the_fallback_runs() -> None:
    counters = ClassifierMetrics(Metrics.collecting().provider.get_meter(METER_NAME))

    fallback = build_link_classifier(MemhiveSettings(), FixedClock(), counters)

    proposals = await fallback.classify(NEW, NEIGHBOURS)
    assert [(p.dst_id, p.kind) for p in proposals] == [("twin", EdgeKind.RELATED_TO)]
