"""Which background services a process runs, by name (`memhive serve <service>`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.service_group import Startable
from memhive_bulletin.app import create_bulletin
from memhive_embed.app import create_embed
from memhive_ingest.app import create_ingest
from memhive_link_classifier.app import create_link_classifier


async def _ingest(infra: Infrastructure) -> Startable:
    return create_ingest(infra)


BACKGROUND_SERVICES: dict[str, Callable[[Infrastructure], Awaitable[Startable]]] = {
    "ingest": _ingest,
    "embed": create_embed,
    "link_classifier": create_link_classifier,
    "bulletin": create_bulletin,
}
