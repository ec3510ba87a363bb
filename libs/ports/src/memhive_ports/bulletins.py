from __future__ import annotations

from typing import Protocol

from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import Audience
from memhive_domain.scopes import ScopeRef


class BulletinStore(Protocol):
    """The latest bulletin of each (workspace, scope, audience); a put replaces the previous one.

    A bulletin read back equals the one put, byte for byte in its text.
    """

    async def get(
        self, workspace_id: str, scope: ScopeRef, audience: Audience
    ) -> Bulletin | None: ...

    async def put(
        self, workspace_id: str, scope: ScopeRef, audience: Audience, bulletin: Bulletin
    ) -> None:
        """Durable when this returns."""
        ...
