"""Re-render a scope's bulletins when its inputs changed; store them; announce the members' one."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_contracts import subjects
from memhive_contracts.bulletin_mapping import bulletin_to_pb
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import Audience
from memhive_domain.scopes import ScopeRef
from memhive_ports import EventPublisher

from memhive_bulletin.prose import ProseBriefing


@dataclass(frozen=True, slots=True)
class Refresh:
    rendered: bool  # False: the inputs were unchanged, nothing was rendered or stored
    next_expiry: datetime | None  # when a live input expires, changing the scope again


class BulletinRefresher:
    """Skips the render when the stored bulletin has the same input fingerprint, so an event
    that changed nothing visible (a replay, a link between other scopes) costs one read.
    LLM prose, when configured, is written for members only: the public bulletin stays the
    deterministic render, which cannot show what it was not given."""

    def __init__(
        self,
        bulletins: ScopeBulletins,
        publisher: EventPublisher,
        prose: ProseBriefing | None = None,
    ) -> None:
        self._bulletins, self._publisher, self._prose = bulletins, publisher, prose
        self.renders = 0

    async def refresh(self, workspace_id: str, scope: ScopeRef) -> Refresh:
        inputs = await self._bulletins.read(workspace_id, scope)
        held = await self._bulletins.stored(workspace_id, scope, Audience.MEMBERS)
        if held is not None and held.fingerprint == inputs.fingerprint:
            return Refresh(False, inputs.next_expiry)
        rendered = self._bulletins.render(inputs).bulletins
        self.renders += 1
        if self._prose is not None:
            members = rendered[Audience.MEMBERS]
            budget = self._bulletins.budget
            rendered[Audience.MEMBERS] = await self._prose.rewrite(members, inputs.memories, budget)
        await self._bulletins.keep(workspace_id, scope, rendered)
        await self._announce(workspace_id, scope, rendered[Audience.MEMBERS])
        return Refresh(True, inputs.next_expiry)

    async def _announce(self, workspace_id: str, scope: ScopeRef, bulletin: Bulletin) -> None:
        event_id = str(uuid.uuid4())
        event = bulletin_to_pb(bulletin, workspace_id, scope, event_id)
        subject = subjects.for_workspace(subjects.BULLETIN_REFRESHED, workspace_id)
        await self._publisher.publish(subject, event, msg_id=event_id)
