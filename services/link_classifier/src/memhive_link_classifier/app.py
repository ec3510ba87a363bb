"""Composition root of the link classifier."""

from __future__ import annotations

from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_contracts import streams, subjects
from memhive_ports import Clock, LinkClassifier
from memhive_settings import MemhiveSettings
from memhive_telemetry import MeterProvider, meter

from memhive_link_classifier.fallback import NearDuplicateClassifier
from memhive_link_classifier.linking import LinkNewMemory
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_link_classifier.subscribers import MemoryIndexedSubscriber

DURABLE = "link-classifier"


async def create_link_classifier(
    infra: Infrastructure,
    *,
    settings: MemhiveSettings | None = None,
    durable: str = DURABLE,
    workspace_id: str | None = None,
    meter_provider: MeterProvider | None = None,
) -> PullConsumer:
    """settings: infra's unless given; workspace_id: only that workspace's events."""
    settings = settings or infra.settings
    metrics = ClassifierMetrics(meter(METER_NAME, meter_provider))
    vector, _ = await infra.lanes()
    link = LinkNewMemory(
        infra.store,
        vector,
        build_link_classifier(settings, infra.clock, metrics),
        infra.publisher,
        infra.clock,
        metrics,
        neighbours=settings.link_classifier.neighbours,
    )
    indexed = subjects.MEMORY_INDEXED
    return PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=durable,
        subjects=[
            subjects.for_workspace(indexed, workspace_id)
            if workspace_id
            else subjects.any_workspace(indexed)
        ],
        handle_batch=MemoryIndexedSubscriber(link).handle_batch,
        batch_size=settings.link_classifier.batch_size,
        max_deliveries=settings.link_classifier.max_deliveries,
    )


def build_link_classifier(
    settings: MemhiveSettings, clock: Clock, metrics: ClassifierMetrics
) -> LinkClassifier:
    """With no LLM configured, the near-duplicate fallback alone."""
    fallback = NearDuplicateClassifier(settings.link_classifier.fallback_threshold)
    llm = settings.llm
    if llm.model is None:
        return fallback
    # Imported only with an LLM: litellm is slow to import.
    from memhive_adapters.llm.litellm_chat import LiteLlmChat
    from memhive_adapters.llm.spend_guard import SpendGuard

    from memhive_link_classifier.llm_classifier import LlmLinkClassifier

    chat = LiteLlmChat(
        llm.model,
        api_base=llm.api_base,
        api_key=llm.api_key.get_secret_value() if llm.api_key else None,
        timeout_s=llm.timeout_s,
        max_output_tokens=llm.max_output_tokens,
    )
    guard = SpendGuard(
        clock, calls_per_minute=llm.calls_per_minute, tokens_per_day=llm.tokens_per_day
    )
    return LlmLinkClassifier(
        chat, guard, fallback, metrics, max_output_tokens=llm.max_output_tokens
    )
