"""Who a bulletin is written for. Each scope has one bulletin per audience, so a rendered text
never has to be filtered afterwards: a non-member's bulletin was rendered from public memories
only and can never show a private one."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.scopes import Visibility


class Audience(StrEnum):
    MEMBERS = "members"  # every visibility
    PUBLIC = "public"  # public memories only, for readers outside the workspace


def audience_of(principal: Principal) -> Audience:
    return Audience.MEMBERS if principal.is_member else Audience.PUBLIC


def shown_to(audience: Audience, memories: Iterable[Memory]) -> list[Memory]:
    if audience is Audience.MEMBERS:
        return list(memories)
    return [m for m in memories if m.visibility is Visibility.PUBLIC]
