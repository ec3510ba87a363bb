"""Composition root of the link classifier."""

from __future__ import annotations

from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.llm import (
    build_chat_model,
    build_spend_guard,
    open_shared_spend_guard,
)
from memhive_application.spend_guard import SpendGuard
from memhive_contracts import streams, subjects
from memhive_ports import Clock, LinkClassifier
from memhive_settings import MemhiveSettings
from memhive_telemetry import MeterProvider, meter

from memhive_link_classifier.fallback import NearDuplicateClassifier
from memhive_link_classifier.linking import LinkNewMemory
from memhive_link_classifier.llm_classifier import LlmLinkClassifier
from memhive_link_classifier.metrics import METER_NAME, ClassifierMetrics
from memhive_link_classifier.subscribers import MemoryIndexedSubscriber

DURABLE = "link-classifier"
SPEND_CONSUMER = "link_classifier"  # its replicas share one LLM spend bound


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
    spend = None
    if settings.llm.model:
        spend = await open_shared_spend_guard(
            settings.llm, infra.clock, infra.js, consumer=SPEND_CONSUMER
        )
    link = LinkNewMemory(
        infra.store,
        vector,
        build_link_classifier(settings, infra.clock, metrics, spend),
        infra.publisher,
        infra.clock,
        metrics,
        neighbours=settings.link_classifier.neighbours,
        # Without an LLM only near-duplicates can be linked: the others are never read.
        min_similarity=None if settings.llm.model else near_duplicate_threshold(settings),
    )
    batch_size = settings.link_classifier.batch_for(settings.llm.model)
    return PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=durable,
        subjects=[
            subjects.for_workspace(indexed, workspace_id)
            if workspace_id
            else subjects.any_workspace(indexed)
            for indexed in (subjects.MEMORY_INDEXED, subjects.MEMORIES_INDEXED)
        ],
        handle_batch=MemoryIndexedSubscriber(
            link, side_by_side=not settings.llm.model, at_once=batch_size
        ).handle_batch,
        batch_size=batch_size,
        max_deliveries=settings.link_classifier.max_deliveries,
    )


def near_duplicate_threshold(settings: MemhiveSettings) -> float:
    """The link classifier's own, or else the save's conflict threshold: what a save waiting
    for `indexed` would have refused is what gets linked as a near-duplicate."""
    own = settings.link_classifier.fallback_threshold
    return settings.query.conflict_threshold if own is None else own


def build_link_classifier(
    settings: MemhiveSettings,
    clock: Clock,
    metrics: ClassifierMetrics,
    spend: SpendGuard | None = None,
) -> LinkClassifier:
    """With no LLM configured, the near-duplicate fallback alone. spend: this process's own
    bound unless given (the service passes the one its replicas share)."""
    fallback = NearDuplicateClassifier(near_duplicate_threshold(settings))
    chat = build_chat_model(settings.llm)
    if chat is None:
        return fallback
    return LlmLinkClassifier(
        chat,
        spend or build_spend_guard(settings.llm, clock, consumer=SPEND_CONSUMER),
        fallback,
        metrics,
        max_output_tokens=settings.llm.max_output_tokens,
    )
