"""Composition root of the bulletin service: a consumer of memory events marking scopes
changed, and a scheduler rendering them once they fall due."""

from __future__ import annotations

from datetime import timedelta

from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.runtime.bulletins import open_scope_bulletins
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.llm import build_chat_model, open_shared_spend_guard
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter
from memhive_contracts import streams, subjects
from memhive_domain.bulletin_schedule import BulletinSchedule
from memhive_ports import Clock
from memhive_ports.chat_model import ChatModel
from memhive_ports.token_counter import TokenCounter
from memhive_settings import MemhiveSettings

from memhive_bulletin.prose import ProseBriefing
from memhive_bulletin.record_cache import EventFreshRecords
from memhive_bulletin.refresher import BulletinRefresher
from memhive_bulletin.scheduler import BulletinScheduler
from memhive_bulletin.subscribers import EVENT_SUBJECTS, ScopeChangeSubscriber

DURABLE = "bulletin"


class BulletinService(ServiceGroup):
    """Scheduler first, consumer second: stopping reverses it, so no change arrives unheard."""

    def __init__(
        self,
        scheduler: BulletinScheduler,
        consumer: PullConsumer,
        refresher: BulletinRefresher,
        records: EventFreshRecords,
    ) -> None:
        super().__init__([scheduler, consumer])
        self.scheduler, self.consumer, self.refresher = scheduler, consumer, refresher
        self.records = records


async def create_bulletin(
    infra: Infrastructure,
    *,
    clock: Clock | None = None,
    chat_model: ChatModel | None = None,
    durable: str = DURABLE,
    workspaces: str = "*",
) -> BulletinService:
    """clock: defaults to infra.clock (tests drive time). chat_model: defaults to litellm when
    MEMHIVE_LLM__MODEL is set and bulletin.llm_prose is on; otherwise no LLM is ever called.
    workspaces: one workspace id, or "*" for all (a worker may serve a single workspace)."""
    settings, clock = infra.settings, clock or infra.clock
    # Embedded lanes: this process is the only bulletin, and sees every event.
    started_at = None if infra.generations.shared else clock.now()
    records = EventFreshRecords(
        infra.store, capacity=settings.bulletin.records_kept, started_at=started_at
    )
    bulletins = await open_scope_bulletins(infra, clock, records)
    counter = TiktokenCounter()
    prose = await _prose(infra, chat_model or _chat_model(settings), counter, clock)
    refresher = BulletinRefresher(bulletins, infra.publisher, prose)
    scheduler = BulletinScheduler(
        refresher.refresh,
        bulletin_schedule(settings),
        clock,
        max_share=settings.bulletin.max_refresh_share,
    )
    consumer = PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=durable,
        subjects=[subjects.for_workspace(s, workspaces) for s in EVENT_SUBJECTS],
        handle_batch=ScopeChangeSubscriber(scheduler, records).handle_batch,
        max_deliveries=settings.bulletin.max_deliveries,
    )
    return BulletinService(scheduler, consumer, refresher, records)


def bulletin_schedule(settings: MemhiveSettings) -> BulletinSchedule:
    b = settings.bulletin
    return BulletinSchedule(timedelta(seconds=b.quiet_period_s), timedelta(seconds=b.max_delay_s))


def _chat_model(settings: MemhiveSettings) -> ChatModel | None:
    return build_chat_model(settings.llm) if settings.bulletin.llm_prose else None


async def _prose(
    infra: Infrastructure, model: ChatModel | None, counter: TokenCounter, clock: Clock
) -> ProseBriefing | None:
    if model is None:
        return None
    settings = infra.settings
    spend = await open_shared_spend_guard(settings.llm, clock, infra.js, consumer=DURABLE)
    return ProseBriefing(model, counter, spend, summary_words=settings.bulletin.summary_words)
