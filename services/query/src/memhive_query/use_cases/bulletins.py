"""Use case: a scope's bulletin for the caller's audience (members, or public only)."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import audience_of
from memhive_domain.enum_fields import parse_enum
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, ScopeRef, resolve_scope, scope_problems


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
        self, principal: Principal, scope: str | None, product_id: str | None
    ) -> ScopeBulletin:
        ref = parse_scope(scope, product_id)
        bulletin = await self._bulletins.get_or_render(
            principal.workspace_id, ref, audience_of(principal)
        )
        return ScopeBulletin(ref, bulletin)


def parse_scope(scope: str | None, product_id: str | None) -> ScopeRef:
    """None with a product_id means that product; nothing at all means global."""
    problems: list[FieldProblem] = []
    parsed = None if scope is None else parse_enum(Scope, scope, "scope", problems)
    if problems:
        raise InvalidInput(problems)
    resolved = resolve_scope(parsed, product_id or None)
    if problems := scope_problems(resolved, product_id or None):
        raise InvalidInput(problems)
    return ScopeRef(resolved, product_id or None)
