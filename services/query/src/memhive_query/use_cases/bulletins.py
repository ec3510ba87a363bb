"""Use case: a scope's bulletin for the caller's audience (members, or public only)."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import audience_of
from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.memory import node_of
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import can_read
from memhive_domain.scopes import ROOT, Scope, ScopeRef


@dataclass(frozen=True, slots=True)
class ScopeBulletin:
    scope: ScopeRef
    bulletin: Bulletin


class ReadBulletin:
    """The stored bulletin; a scope the bulletin service has not rendered yet is rendered
    here once and stored, so the first call of a session never comes back empty."""

    def __init__(self, bulletins: ScopeBulletins) -> None:
        self._bulletins = bulletins

    async def __call__(
        self,
        principal: Principal,
        scope: str | None,
        product_id: str | None,
        scope_path: str | None = None,
    ) -> ScopeBulletin:
        require(principal, Action.READ_BULLETIN)
        ref = parse_scope(scope, product_id, scope_path)
        if not can_read(principal, ref):
            raise NotAllowed(f"scope {ref.key!r} is outside this token's scope tree")
        bulletin = await self._bulletins.get_or_render(
            principal.workspace_id, ref, audience_of(principal)
        )
        return ScopeBulletin(ref, bulletin)


def parse_scope(
    scope: str | None, product_id: str | None, scope_path: str | None = None
) -> ScopeRef:
    """A node: scope_path, or scope (global/product, or itself a path) with product_id;
    None with a product_id means that product; nothing at all means global."""
    problems: list[FieldProblem] = []
    if scope is not None and scope not in tuple(Scope) and not scope_path:
        scope, scope_path = None, scope  # the route's {scope} may be a whole path
    node = node_of(scope, product_id, scope_path, problems)
    if problems:
        raise InvalidInput(problems)
    return node or ROOT
