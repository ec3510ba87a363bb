"""Who is asking: a token (or a signed-in human) resolves to a principal confined to one
workspace, with a role and a home node in the workspace's scope tree."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from memhive_domain.scopes import Visibility

# Workspace ids become NATS subject tokens and KV key parts, so keep them plain.
WORKSPACE_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
USER_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$")

# The workspace root of the scope tree: every principal without a narrower home lives here.
ROOT_HOME = "global"


class Role(StrEnum):
    """What a principal may do; the full table lives with the access policy."""

    ADMIN = "admin"  # members' rights plus tokens, audit and workspace administration
    MEMBER = "member"  # a person of the workspace: reads private and public, writes
    AGENT = "agent"  # an agent, usually acting for a user: writes within its scope tree
    VIEWER = "viewer"  # read-only, public memories only (a non-member)


@dataclass(frozen=True, slots=True)
class Principal:
    workspace_id: str
    user_id: str
    role: Role = Role.MEMBER
    home: str = ROOT_HOME  # the principal's node in the scope tree
    acting_for: str | None = None  # the user an agent acts for, when it says so
    # How it signed in, for the audit log: "token:<id>", "oidc:<subject>" or "cli".
    credential: str | None = field(default=None, compare=False)

    @property
    def is_member(self) -> bool:
        """Sees private memories of the workspace (everyone but a viewer)."""
        return self.role is not Role.VIEWER

    @property
    def can_write(self) -> bool:
        return self.is_member

    def can_see(self, visibility: Visibility) -> bool:
        return self.is_member or visibility is Visibility.PUBLIC


def member_or_viewer(is_member: bool) -> Role:
    """The role of a token issued before roles existed (a member, or read-only)."""
    return Role.MEMBER if is_member else Role.VIEWER


def is_valid_workspace_id(value: str) -> bool:
    return bool(WORKSPACE_ID_PATTERN.match(value))


def is_valid_user_id(value: str) -> bool:
    return bool(USER_ID_PATTERN.match(value))
