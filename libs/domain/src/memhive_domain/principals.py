"""Who is asking: a token resolves to a principal confined to one workspace."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memhive_domain.scopes import Visibility

# Workspace ids become NATS subject tokens and KV key parts, so keep them plain.
WORKSPACE_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
USER_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$")


@dataclass(frozen=True, slots=True)
class Principal:
    workspace_id: str
    user_id: str
    is_member: bool

    @property
    def can_write(self) -> bool:
        return self.is_member

    def can_see(self, visibility: Visibility) -> bool:
        return self.is_member or visibility is Visibility.PUBLIC


def is_valid_workspace_id(value: str) -> bool:
    return bool(WORKSPACE_ID_PATTERN.match(value))


def is_valid_user_id(value: str) -> bool:
    return bool(USER_ID_PATTERN.match(value))
