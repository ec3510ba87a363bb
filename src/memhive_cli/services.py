"""Which background services a process runs, by name (`memhive serve <service>`).

Each composition root is imported only when its service is started, so a process that
runs one service does not pay for the others' imports (litellm alone takes seconds).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhive_adapters.runtime.infrastructure import Infrastructure
    from memhive_adapters.runtime.service_group import Startable


async def _ingest(infra: Infrastructure) -> Startable:
    from memhive_ingest.app import create_ingest

    return create_ingest(infra)


async def _embed(infra: Infrastructure) -> Startable:
    from memhive_embed.app import create_embed

    return await create_embed(infra)


async def _link_classifier(infra: Infrastructure) -> Startable:
    from memhive_link_classifier.app import create_link_classifier

    return await create_link_classifier(infra)


async def _bulletin(infra: Infrastructure) -> Startable:
    from memhive_bulletin.app import create_bulletin

    return await create_bulletin(infra)


BACKGROUND_SERVICES: dict[str, Callable[[Infrastructure], Awaitable[Startable]]] = {
    "ingest": _ingest,
    "embed": _embed,
    "link_classifier": _link_classifier,
    "bulletin": _bulletin,
}
SERVICES = ("query", *BACKGROUND_SERVICES)
