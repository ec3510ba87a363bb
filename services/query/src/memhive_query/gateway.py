"""The gateway's use cases, wired once per app from the infrastructure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property

from memhive_adapters.nats.activity_log import JetStreamActivityLog
from memhive_adapters.nats.audit_log import JetStreamAuditLog
from memhive_adapters.nats.dead_letters import DeadLetters
from memhive_adapters.nats.kv_key_value_store import KvKeyValueStore
from memhive_adapters.nats.kv_shown_in_sessions import KvShownInSessions
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_adapters.nats.revision_log import JetStreamRevisionLog
from memhive_adapters.nats.scheduler import JetStreamScheduler
from memhive_adapters.nats.token_requests import BusTokenCommands
from memhive_adapters.oidc.identity import oidc_identity
from memhive_adapters.runtime.bulletins import open_scope_bulletins
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.llm import build_chat_model, open_shared_spend_guard
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter
from memhive_application.announcements import Announcer
from memhive_application.audit_trail import AuditTrail
from memhive_application.authentication import Authenticator
from memhive_application.cached_products import CachedProducts
from memhive_application.purge_scheduling import PurgeScheduling
from memhive_domain.fusion import FusionMethod
from memhive_domain.ranking import AnswerFit
from memhive_ports import (
    Clock,
    Embedder,
    EventPublisher,
    IdentityProvider,
    IdentityVerifier,
    MemoryStore,
)
from memhive_settings import RerankSettings

from memhive_query.event_waiter import EventWaiter
from memhive_query.use_cases.activity import RecentActivity
from memhive_query.use_cases.agent_hooks import AnswerAgentHook
from memhive_query.use_cases.audit import (
    AuditedDeadLetters,
    AuditedExport,
    AuditedForget,
    AuditedImport,
    AuditedKeyValues,
    AuditedLink,
    AuditedProducts,
    AuditedSave,
    AuditedUpdate,
    gateway_trail,
)
from memhive_query.use_cases.bulletins import ReadBulletin
from memhive_query.use_cases.conflicts import ConflictCheck
from memhive_query.use_cases.consolidate import ConsolidateMemories, Summarizer
from memhive_query.use_cases.context import BuildContext
from memhive_query.use_cases.dead_letters import WorkspaceDeadLetters
from memhive_query.use_cases.exports import ExportMemories
from memhive_query.use_cases.identical import IdenticalSaves
from memhive_query.use_cases.import_budget import ImportBudget
from memhive_query.use_cases.imports import ImportMemories
from memhive_query.use_cases.key_values import KeyValues
from memhive_query.use_cases.link import EdgeCommands, EdgeReader, LinkMemories
from memhive_query.use_cases.memories import ForgetMemory, MemoryReader
from memhive_query.use_cases.products import Products
from memhive_query.use_cases.recall import (
    LEXICAL_LANE,
    VECTOR_LANE,
    RecallMemories,
    Reranking,
)
from memhive_query.use_cases.revisions import MemoryRevisions
from memhive_query.use_cases.save import SaveMemory
from memhive_query.use_cases.scopes import ScopesOfPrincipal
from memhive_query.use_cases.skills import Skills
from memhive_query.use_cases.tokens import GatewayTokens
from memhive_query.use_cases.update import UpdateMemory


@dataclass(frozen=True, slots=True)
class ImportPorts:
    """An import's restores are writes asked for: they take the guarded command publisher."""

    embedder: Embedder
    store: MemoryStore
    publisher: EventPublisher
    clock: Clock


SPEND_CONSUMER = "consolidation"  # the gateway replicas' summaries share one LLM spend bound


@dataclass
class Gateway:
    infra: Infrastructure
    auth: Authenticator
    waiter: EventWaiter
    save: AuditedSave
    recall: RecallMemories
    reader: MemoryReader
    forget: AuditedForget
    revisions: MemoryRevisions
    dead_letters: AuditedDeadLetters
    link: AuditedLink
    edges: EdgeReader
    bulletin: ReadBulletin
    products: AuditedProducts
    scopes: ScopesOfPrincipal
    audit: AuditTrail
    tokens: GatewayTokens
    update: AuditedUpdate
    kv: AuditedKeyValues
    imports: AuditedImport
    import_budget: ImportBudget
    export: AuditedExport
    # The product records every use case reads (a save reads its product's): cached, and
    # dropped on any product put by any replica.
    product_records: CachedProducts
    # OIDC: the JWT verifier (API and dashboard) and, for the dashboard's sign-in, the provider.
    identity: IdentityVerifier | None = None
    identity_provider: IdentityProvider | None = None
    # Writes consolidation bodies when asked; None without an LLM (MEMHIVE_LLM__MODEL).
    summarizer: Summarizer | None = None

    @cached_property
    def consolidate(self) -> ConsolidateMemories:
        return ConsolidateMemories(self.reader, self.save, self.summarizer)

    @cached_property
    def skills(self) -> Skills:
        return Skills(self.reader, self.update, self.infra.clock)

    @cached_property
    def activity(self) -> RecentActivity:
        return RecentActivity(
            JetStreamActivityLog(self.infra.js), self.infra.store, self.infra.clock
        )

    @cached_property
    def context(self) -> BuildContext:
        return BuildContext(
            self.bulletin, self.recall, self.infra.store, TiktokenCounter(), self.infra.clock
        )

    @cached_property
    def agent_hook(self) -> AnswerAgentHook:
        shown = KvShownInSessions(self.infra.js, space=self.infra.space)
        return AnswerAgentHook(self.context, self.recall, shown)

    async def start(self) -> None:
        await self.waiter.start()
        await self.auth.start()
        await self.product_records.start()

    async def stop(self) -> None:
        await self.product_records.stop()
        await self.auth.stop()
        await self.recall.drain()
        await self.waiter.stop()


async def open_summarizer(infra: Infrastructure) -> Summarizer | None:
    """The consolidation summarizer, within the spend bound every gateway replica shares."""
    llm = infra.settings.llm
    chat = build_chat_model(llm)
    if chat is None:
        return None
    spend = await open_shared_spend_guard(llm, infra.clock, infra.js, consumer=SPEND_CONSUMER)
    return Summarizer(chat, spend)


def _reranking(settings: RerankSettings, infra: Infrastructure) -> Reranking | None:
    """The process's reranker (shared with embed in one process), and the document terms
    embed keeps when `document_terms` > 0."""
    if (reranker := infra.reranker) is None:
        return None
    return Reranking(reranker, settings.candidates, settings.weight, infra.term_weights)


async def build_gateway(infra: Infrastructure) -> Gateway:
    settings = infra.settings.query
    vector, lexical = await infra.lanes()
    waiter = EventWaiter(infra.nats, stalls=infra.nats.liveness)
    timeout = settings.save_wait_timeout_s
    reader = MemoryReader(infra.store, lexical, infra.clock)
    # Writes asked for: refused below the data dir's low-space watermark (507). The audit
    # trail and recall hits keep `infra.publisher`: the room kept free is for them too.
    commands = JetStreamPublisher(infra.js, space=infra.space)
    edge_commands = EdgeCommands(commands, waiter, timeout)
    trail = gateway_trail(JetStreamAuditLog(infra.js), infra.clock)
    conflicts = ConflictCheck(vector, infra.store, settings.conflict_threshold)
    oidc = oidc_identity(infra.settings.oidc)
    # The gateway records a save itself (use_cases/save.py): the record's create is the
    # identical-body claim, MemorySaved is refused below the low-space watermark like a
    # command, and an expiring memory's purge is scheduled as ingest schedules its own.
    retention = timedelta(days=infra.settings.ingest.expired_retention_days)
    product_records = CachedProducts(infra.products)
    announcer = Announcer(commands, PurgeScheduling(JetStreamScheduler(infra.js), retention))
    save = SaveMemory(
        infra.embedder,
        announcer,
        IdenticalSaves(infra.store.refusing_when_low(infra.space), waiter, lexical),
        waiter,
        infra.clock,
        timeout,
        conflicts=conflicts,
        edges=edge_commands,
        products=product_records,
    )
    key_values = KeyValues(KvKeyValueStore(infra.js, infra.clock, infra.space), infra.clock)
    ports = ImportPorts(infra.embedder, infra.store, commands, infra.clock)
    imports = ImportMemories(
        save, conflicts, edge_commands, key_values, waiter, infra=ports, wait_timeout_s=timeout
    )
    export = ExportMemories(reader, infra.store, JetStreamRevisionLog(infra.js), infra.clock)
    return Gateway(
        infra=infra,
        auth=Authenticator(infra.tokens, infra.clock, identity=oidc.verifier),
        identity=oidc.verifier,
        identity_provider=oidc.provider,
        summarizer=await open_summarizer(infra),
        waiter=waiter,
        save=AuditedSave(save, trail),
        recall=RecallMemories(
            infra.store,
            vector,
            lexical,
            infra.reader_embedder,  # a recall's pass before the saves' waiting
            infra.publisher,
            infra.clock,
            lane_weights={
                VECTOR_LANE: settings.vector_weight,
                LEXICAL_LANE: settings.lexical_weight,  # None: the encoder's own
            },
            importance_influence=settings.importance_influence,
            fusion=FusionMethod(settings.fusion),
            neighbour_share=settings.neighbour_share,
            time_boost=settings.time_boost,
            fit=AnswerFit(
                settings.reply_share,
                settings.subject_boost,
                settings.dated_boost,
                settings.question_penalty,
            ),
            follow_top=settings.follow_top,
            reranking=_reranking(settings.rerank, infra),
        ),
        reader=reader,
        forget=AuditedForget(ForgetMemory(reader, commands, waiter, infra.clock, timeout), trail),
        revisions=MemoryRevisions(infra.store, JetStreamRevisionLog(infra.js), infra.clock),
        dead_letters=AuditedDeadLetters(WorkspaceDeadLetters(DeadLetters(infra.js)), trail),
        link=AuditedLink(LinkMemories(infra.store, edge_commands, infra.clock), trail),
        edges=EdgeReader(infra.store, infra.clock),
        bulletin=ReadBulletin(await open_scope_bulletins(infra)),
        products=AuditedProducts(Products(product_records, infra.clock), trail),
        scopes=ScopesOfPrincipal(
            Products(product_records, infra.clock), lexical, infra.store, infra.clock
        ),
        audit=trail,
        tokens=GatewayTokens(
            infra.tokens,
            BusTokenCommands(infra.nats, settings.token_request_timeout_s, infra.space),
        ),
        update=AuditedUpdate(
            UpdateMemory(
                reader,
                commands,
                waiter,
                infra.clock,
                timeout,
                embedder=infra.embedder,
                conflicts=conflicts,
            ),
            trail,
        ),
        kv=AuditedKeyValues(key_values, trail),
        imports=AuditedImport(imports, trail),
        import_budget=ImportBudget(settings.import_bytes_at_once, settings.import_max_bytes),
        export=AuditedExport(export, trail),
        product_records=product_records,
    )
