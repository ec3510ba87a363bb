"""Delegated administration of tokens: whom an admin may issue, list, rotate and revoke.

Vault's and Kubernetes' rule against escalation: you may only grant what you hold, where you
hold it. A token confers a role at a home node, so an admin administers exactly the tokens
homed at or below its own home whose role holds no permission its own role lacks. An admin
homed at `product:x/team:a` cannot mint a root-homed (workspace-wide) token, nor revoke or
rotate one, and lists only the tokens of its subtree; a root-homed admin administers every
token of its workspace. Whether the principal may manage tokens at all is the policy's
`manage_tokens`; the workspace is checked by the caller (another workspace's token is an
unknown one).
"""

from __future__ import annotations

from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.policy import PERMISSIONS
from memhive_domain.principals import Principal, Role
from memhive_domain.scope_tree import home_of
from memhive_domain.scopes import ScopeRef, parse_scope_path


def role_within(granted: Role, held: Role) -> bool:
    """Every action the granted role may take, the held role may take too (the policy table
    orders the roles: viewer < agent < member < admin)."""
    return all(held in roles for roles in PERMISSIONS.values() if granted in roles)


def within_home(principal: Principal, home: ScopeRef) -> bool:
    """The node is the principal's home or below it."""
    own = home_of(principal)
    return home == own or home.is_below(own)


def administers(principal: Principal, role: Role, home: str) -> bool:
    """May this principal act on a token of this role, homed at this path? (A path that is
    not a node, from a corrupt record, is administered by the root alone.)"""
    node = parse_scope_path(home, [], "home")
    if node is None:
        return home_of(principal).is_root
    return within_home(principal, node) and role_within(role, principal.role)


def ensure_may_grant(principal: Principal, role: Role, home: str) -> None:
    """Raises InvalidInput for a home that is not a path, NotAllowed (403) naming the limit
    for a token above the principal's own home or role."""
    problems: list[FieldProblem] = []
    node = parse_scope_path(home, problems, "home")
    if node is None:
        raise InvalidInput(problems)
    if not within_home(principal, node):
        raise NotAllowed(
            f"cannot issue a token homed at {node.key!r}: an admin homed at "
            f"{principal.home!r} issues tokens at or below its home only"
        )
    if not role_within(role, principal.role):
        raise NotAllowed(
            f"cannot issue a {role.value} token: a {principal.role.value} grants no role "
            "above its own"
        )
