"""Composition root of the ingest service."""

from __future__ import annotations

from datetime import timedelta

from memhive_adapters.nats.audit_log import JetStreamAuditLog
from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.scheduler import JetStreamScheduler
from memhive_adapters.oidc.identity import oidc_identity
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_application.audit_trail import AuditTrail
from memhive_application.authentication import Authenticator
from memhive_application.cached_products import CachedProducts
from memhive_application.purge_scheduling import PurgeScheduling
from memhive_application.token_requests import AuthenticatedTokenAdmin
from memhive_application.tokens import TokenAdmin
from memhive_contracts import streams, subjects

from memhive_ingest.access_counts import AccessCounter
from memhive_ingest.forget_memory import ForgetMemoryHandler
from memhive_ingest.link_memories import LinkMemoriesHandler
from memhive_ingest.purge_memory import PurgeMemoryHandler
from memhive_ingest.save_memory import SaveMemoryHandler
from memhive_ingest.subscribers import ActivitySubscriber, CommandRouter, command_routes
from memhive_ingest.token_responder import TokenResponder
from memhive_ingest.update_memory import UpdateMemoryHandler
from memhive_ingest.upstream_events import UpstreamEventHandler, UpstreamEventSubscriber

COMMANDS_DURABLE = "ingest"
ACTIVITY_DURABLE = "ingest-activity"
UPSTREAM_DURABLE = "ingest-upstream"
# Recall events folded per fetch, and at most one fold per window (ActivitySubscriber).
ACTIVITY_BATCH = 256
ACTIVITY_WINDOW_S = 1.0


def create_ingest(infra: Infrastructure, extra_routes: dict | None = None) -> ServiceGroup:
    settings = infra.settings.ingest
    retention = timedelta(days=settings.expired_retention_days)
    purges = PurgeScheduling(JetStreamScheduler(infra.js), retention)
    # A save into a product inherits the product's visibility: its record is read once,
    # until a product changes, not once per save (a hook's bulk load names a product each).
    products = CachedProducts(infra.products)
    routes = command_routes(
        save=SaveMemoryHandler(infra.store, infra.publisher, products, purges),
        forget=ForgetMemoryHandler(infra.store, infra.publisher),
        link=LinkMemoriesHandler(infra.store, infra.publisher),
        update=UpdateMemoryHandler(infra.store, infra.publisher, purges),
        purge=PurgeMemoryHandler(infra.store, infra.publisher, infra.clock, retention),
    ) | (extra_routes or {})
    commands = PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=COMMANDS_DURABLE,
        subjects=[subjects.any_workspace(prefix) for prefix in routes],
        handle_batch=CommandRouter(routes).handle_batch,
        batch_size=settings.batch_size,
        max_deliveries=settings.max_deliveries,
    )
    activity = PullConsumer(
        infra.js,
        stream=streams.ACTIVITY_STREAM,
        durable=ACTIVITY_DURABLE,
        subjects=[subjects.any_workspace(subjects.MEMORIES_RECALLED)],
        handle_batch=ActivitySubscriber(
            AccessCounter(infra.store), ACTIVITY_BATCH, ACTIVITY_WINDOW_S
        ).handle_batch,
        batch_size=ACTIVITY_BATCH,
        max_deliveries=settings.max_deliveries,
    )
    upstream = PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=UPSTREAM_DURABLE,
        subjects=[subjects.ALL_UPSTREAM],
        handle_batch=UpstreamEventSubscriber(
            UpstreamEventHandler(infra.store, infra.publisher, infra.clock, products)
        ).handle_batch,
        batch_size=settings.batch_size,
        max_deliveries=settings.max_deliveries,
    )
    return ServiceGroup([products, commands, activity, upstream, token_responder(infra)])


def token_responder(infra: Infrastructure) -> TokenResponder:
    """Ingest, the record writer, is also the only token writer: the gateway forwards
    token changes with the caller's credential, which is checked again here (no cache, so
    a revoked admin token stops at once)."""
    identity = oidc_identity(infra.settings.oidc).verifier  # people's JWTs, as the gateway's
    auth = Authenticator(infra.tokens, infra.clock, ttl_s=0, identity=identity)
    trail = AuditTrail(JetStreamAuditLog(infra.js), infra.clock)
    admin = TokenAdmin(infra.tokens, trail, infra.clock)
    return TokenResponder(infra.nats, AuthenticatedTokenAdmin(auth, admin, infra.clock))
