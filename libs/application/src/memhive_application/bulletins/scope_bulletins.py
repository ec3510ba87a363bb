"""Render a scope's bulletins, one per audience, and keep them in the BulletinStore."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memhive_domain.bulletin import Bulletin, BulletinBudget, render_bulletin
from memhive_domain.bulletin_audience import Audience, shown_to
from memhive_domain.scopes import ScopeRef
from memhive_ports import Clock, RetryLater
from memhive_ports.bulletins import BulletinStore
from memhive_ports.token_counter import TokenCounter

from memhive_application.bulletins.scope_reader import ScopeInputs, ScopeReader

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RenderedScope:
    inputs: ScopeInputs
    bulletins: dict[Audience, Bulletin]


class ScopeBulletins:
    """Deterministic renders. Supersession is decided over all the scope's memories, so a
    public memory a private one supersedes stays hidden from the public audience too, as in
    recall."""

    def __init__(
        self,
        reader: ScopeReader,
        store: BulletinStore,
        counter: TokenCounter,
        budget: BulletinBudget,
        clock: Clock,
    ) -> None:
        self._reader, self._store, self._counter = reader, store, counter
        self._budget, self._clock = budget, clock

    @property
    def budget(self) -> BulletinBudget:
        return self._budget

    async def read(self, workspace_id: str, scope: ScopeRef) -> ScopeInputs:
        return await self._reader.read(workspace_id, scope, self._clock.now())

    def render(self, inputs: ScopeInputs) -> RenderedScope:
        return RenderedScope(inputs, {a: self._render(inputs, a) for a in Audience})

    async def stored(
        self, workspace_id: str, scope: ScopeRef, audience: Audience
    ) -> Bulletin | None:
        return await self._store.get(workspace_id, scope, audience)

    async def keep(
        self, workspace_id: str, scope: ScopeRef, bulletins: dict[Audience, Bulletin]
    ) -> None:
        for audience in Audience:
            await self._store.put(workspace_id, scope, audience, bulletins[audience])

    async def get_or_render(
        self, workspace_id: str, scope: ScopeRef, audience: Audience
    ) -> Bulletin:
        """The stored bulletin; a scope that has none yet is rendered once and stored."""
        held = await self.stored(workspace_id, scope, audience)
        if held is not None:
            return held
        rendered = self.render(await self.read(workspace_id, scope))
        try:
            await self.keep(workspace_id, scope, rendered.bulletins)
        except RetryLater as exc:  # a read answers even when the store takes no writes
            log.warning("bulletin %s/%s not kept, served anyway: %s", workspace_id, scope.key, exc)
        return rendered.bulletins[audience]

    def _render(self, inputs: ScopeInputs, audience: Audience) -> Bulletin:
        return render_bulletin(
            inputs.scope,
            shown_to(audience, inputs.memories),
            superseded=inputs.superseded,
            count_tokens=self._counter.count,
            budget=self._budget,
            generated_at=inputs.read_at,
        )
