"""ScopeBulletins built from settings, the same for the bulletin service and the gateway, so
a bulletin rendered on demand is byte-identical to the one the service would render."""

from __future__ import annotations

from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_application.bulletins.scope_reader import ScopeReader
from memhive_domain.bulletin import BulletinBudget
from memhive_ports import Clock, MemoryReader
from memhive_settings import MemhiveSettings

from memhive_adapters.nats.kv_bulletin_store import KvBulletinStore
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter


async def open_scope_bulletins(
    infra: Infrastructure, clock: Clock | None = None, records: MemoryReader | None = None
) -> ScopeBulletins:
    """records: where scopes' records are read (default: the store itself)."""
    _, lexical = await infra.lanes()
    max_memories = infra.settings.bulletin.max_memories
    return ScopeBulletins(
        ScopeReader(
            infra.store if records is None else records, lexical, max_memories=max_memories
        ),
        await KvBulletinStore.open(infra.js),
        TiktokenCounter(),
        bulletin_budget(infra.settings),
        clock or infra.clock,
    )


def bulletin_budget(settings: MemhiveSettings) -> BulletinBudget:
    b = settings.bulletin
    return BulletinBudget(b.total_tokens, b.per_section_tokens, b.line_chars)
