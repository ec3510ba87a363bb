"""The access policy: what each role may do. One table, used by every use case, route and
tool (they call `require`), and rendered into docs/access-control.md (a test keeps the two
equal: `python -m memhive_domain.policy` prints the table).

What a principal may *read* inside its workspace (private vs public, which scope-tree
nodes) is the visibility rule of the scope tree; this module decides whether the action
is allowed at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from memhive_domain.errors import NotAllowed
from memhive_domain.principals import ROOT_HOME, Principal, Role


class Action(StrEnum):
    SAVE = "save"
    UPDATE = "update"
    FLAG = "flag"
    FORGET = "forget"
    LINK = "link"
    RECALL = "recall"
    READ = "read"
    READ_EXPIRED = "read_expired"
    READ_BULLETIN = "read_bulletin"
    READ_CONTEXT = "read_context"
    LIST_DEAD_LETTERS = "list_dead_letters"
    MANAGE_TOKENS = "manage_tokens"
    READ_AUDIT = "read_audit"
    REINDEX = "reindex"


_EVERYONE = frozenset(Role)
_WRITERS = frozenset({Role.ADMIN, Role.MEMBER, Role.AGENT})
_PEOPLE = frozenset({Role.ADMIN, Role.MEMBER})
_ADMINS = frozenset({Role.ADMIN})

PERMISSIONS: Mapping[Action, frozenset[Role]] = {
    Action.SAVE: _WRITERS,
    Action.UPDATE: _WRITERS,
    Action.FLAG: _WRITERS,
    Action.FORGET: _WRITERS,
    Action.LINK: _WRITERS,
    Action.RECALL: _EVERYONE,
    Action.READ: _EVERYONE,
    Action.READ_EXPIRED: _PEOPLE,
    Action.READ_BULLETIN: _EVERYONE,
    Action.READ_CONTEXT: _EVERYONE,
    Action.LIST_DEAD_LETTERS: _PEOPLE,
    Action.MANAGE_TOKENS: _ADMINS,
    Action.READ_AUDIT: _ADMINS,
    Action.REINDEX: _ADMINS,
}

# Where each action is reached from: the doc table's last column.
WHERE: Mapping[Action, str] = {
    Action.SAVE: "`POST /v1/memories`, MCP `save_memory`",
    Action.UPDATE: "`PATCH /v1/memories/{id}`, MCP `update_memory`, clearing flags, "
    "consolidate, crystallize, the dashboard's pin",
    Action.FLAG: "`POST /v1/memories/{id}/flags`, `.../confirmations`, MCP `flag_memory`, "
    "`confirm_memory` (any readable memory)",
    Action.FORGET: "`DELETE /v1/memories/{id}`, MCP `forget_memory`",
    Action.LINK: "`POST /v1/edges`, MCP `link_memories`",
    Action.RECALL: "`POST /v1/recall`, MCP `recall_memory`",
    Action.READ: "`GET /v1/memories[/{id}[/edges,/revisions]]`, MCP `get_memory`, `list_memories`",
    Action.READ_EXPIRED: "`include_expired=true` on `GET /v1/memories[/{id}]` (audits)",
    Action.READ_BULLETIN: "`GET /v1/bulletins/{scope}`, MCP `get_memory_bulletin`",
    Action.READ_CONTEXT: "`POST /v1/context`, MCP `get_context`",
    Action.LIST_DEAD_LETTERS: "`GET /v1/admin/dead-letters`",
    Action.MANAGE_TOKENS: "`/v1/admin/tokens` (create, list, revoke, rotate)",
    Action.READ_AUDIT: "`GET /v1/admin/audit`",
    Action.REINDEX: "`memhive reindex` (operators, over the bus)",
}

_WHO = {
    frozenset(_WRITERS): "workspace members and agents",
    frozenset(_PEOPLE): "workspace members",
    frozenset(_ADMINS): "workspace admins",
}


def allows(principal: Principal, action: Action) -> bool:
    return principal.role in PERMISSIONS[action]


def require(principal: Principal, action: Action) -> None:
    """Raises NotAllowed (403) naming who may, when the principal's role may not."""
    if not allows(principal, action):
        who = _WHO.get(PERMISSIONS[action], "other roles")
        raise NotAllowed(
            f"a {principal.role.value} may not {action.value.replace('_', ' ')}: only {who} can"
        )


def may_write_global(principal: Principal) -> bool:
    """Molecule's rule, the hook for the scope tree: the workspace root (global) is
    written only by admins or by writers homed at the root. Save decides which node a
    memory lands on; it asks this when that node is the root."""
    return principal.role is Role.ADMIN or (
        principal.role in _WRITERS and principal.home == ROOT_HOME
    )


def policy_table_markdown() -> str:
    roles = list(Role)
    header = "| action | " + " | ".join(r.value for r in roles) + " | reached from |"
    rule = "|---|" + "---|" * len(roles) + "---|"
    rows = [
        f"| {action.value} | "
        + " | ".join("yes" if role in PERMISSIONS[action] else "no" for role in roles)
        + f" | {WHERE[action]} |"
        for action in Action
    ]
    return "\n".join([header, rule, *rows])


if __name__ == "__main__":
    print(policy_table_markdown())
