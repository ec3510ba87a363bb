"""The access policy: what each role may do. One table, used by every use case, route and
tool (they call `require`), and rendered into docs/access-control.md (a test keeps the two
equal: `python -m memhive_domain.policy` prints the table).

What a principal may *read* inside its workspace (private vs public, which scope-tree
nodes) is the visibility rule of the scope tree; this module decides whether the action
is allowed at all, and says (ON_THE_NODE) what each action then needs on the nodes it
touches: rights follow the target, so a write that changes another memory's standing
needs the right on that memory's node, not only on the writer's own.
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
    CONFIRM = "confirm"
    FORGET = "forget"
    LINK = "link"
    RECALL = "recall"
    READ = "read"
    READ_EXPIRED = "read_expired"
    READ_BULLETIN = "read_bulletin"
    READ_CONTEXT = "read_context"
    READ_ACTIVITY = "read_activity"
    READ_STATE = "read_state"
    WRITE_STATE = "write_state"
    READ_PRODUCTS = "read_products"
    DEFINE_PRODUCT = "define_product"
    LIST_DEAD_LETTERS = "list_dead_letters"
    MANAGE_TOKENS = "manage_tokens"
    READ_AUDIT = "read_audit"
    REINDEX = "reindex"
    EXPORT = "export"
    IMPORT = "import"


_EVERYONE = frozenset(Role)
_WRITERS = frozenset({Role.ADMIN, Role.MEMBER, Role.AGENT})
_PEOPLE = frozenset({Role.ADMIN, Role.MEMBER})
_ADMINS = frozenset({Role.ADMIN})

PERMISSIONS: Mapping[Action, frozenset[Role]] = {
    Action.SAVE: _WRITERS,
    Action.UPDATE: _WRITERS,
    Action.FLAG: _WRITERS,
    Action.CONFIRM: _WRITERS,
    Action.FORGET: _WRITERS,
    Action.LINK: _WRITERS,
    Action.RECALL: _EVERYONE,
    Action.READ: _EVERYONE,
    Action.READ_EXPIRED: _PEOPLE,
    Action.READ_BULLETIN: _EVERYONE,
    Action.READ_CONTEXT: _EVERYONE,
    Action.READ_ACTIVITY: _EVERYONE,  # entries filtered by the caller's view, as recall is
    # Key/value entries have no visibility of their own: they are the workspace's, so a
    # viewer (a public-only reader) reads none of them (memhive_domain.kv).
    Action.READ_STATE: _WRITERS,
    Action.WRITE_STATE: _WRITERS,
    Action.READ_PRODUCTS: _EVERYONE,
    # A product's visibility is what its memories inherit: a decision for people, not agents.
    Action.DEFINE_PRODUCT: _PEOPLE,
    Action.LIST_DEAD_LETTERS: _PEOPLE,
    Action.MANAGE_TOKENS: _ADMINS,
    Action.READ_AUDIT: _ADMINS,
    Action.REINDEX: _ADMINS,
    # Moving a workspace's memories in or out at once is for people: each memory is still
    # checked against the caller's part of the scope tree, as a save or a listing is.
    Action.EXPORT: _PEOPLE,
    Action.IMPORT: _PEOPLE,
}

# Where each action is reached from: the doc table's last column, and what a test checks
# against the gateway's routes and MCP tools (every one must be listed). An entry is an
# HTTP route ("GET /v1/memories", path parameters named freely), "MCP <tool>" or
# "CLI <command>", optionally followed by a remark in parentheses.
REACHED_FROM: Mapping[Action, tuple[str, ...]] = {
    Action.SAVE: ("POST /v1/memories", "MCP save_memory"),
    Action.UPDATE: (
        "PATCH /v1/memories/{id}",
        "DELETE /v1/memories/{id}/flags",
        "POST /v1/memories/consolidate",
        "POST /v1/memories/{id}/crystallize",
        "POST /memory/m/{id}/pin (dashboard)",
        "MCP update_memory",
        "MCP consolidate_memories",
        "MCP crystallize_memory",
    ),
    Action.FLAG: ("POST /v1/memories/{id}/flags", "MCP flag_memory"),
    Action.CONFIRM: ("POST /v1/memories/{id}/confirmations", "MCP confirm_memory"),
    Action.FORGET: (
        "DELETE /v1/memories/{id}",
        "GET /memory/m/{id}/forget (dashboard: the confirmation)",
        "POST /memory/m/{id}/forget",
        "MCP forget_memory",
    ),
    Action.LINK: ("POST /v1/edges", "MCP link_memories"),
    Action.RECALL: (
        "POST /v1/recall",
        "POST /v1/hooks/claude-code (UserPromptSubmit)",
        "GET /memory (dashboard: a search)",
        "MCP recall_memory",
    ),
    Action.READ: (
        "GET /v1/memories",
        "GET /v1/memories/{id}",
        "GET /v1/memories/{id}/edges",
        "GET /v1/memories/{id}/revisions",
        "GET /v1/memories/{id}/flags",
        "GET /v1/memories/{id}/skill (also MCP resource `memhive://skills/{memory_id}`)",
        "GET /v1/skills (MCP `resources/list` names them too)",
        "GET /v1/skills/candidates",
        "GET /memory (dashboard: a listing)",
        "GET /memory/m/{id}",
        "GET /memory/stats (counts; saves and recalls per day for all but viewers)",
        "MCP get_memory",
        "MCP list_memories",
    ),
    Action.READ_EXPIRED: (
        "GET /v1/memories (include_expired=true: audits)",
        "GET /v1/memories/{id} (include_expired=true)",
    ),
    Action.READ_BULLETIN: (
        "GET /v1/bulletins/{scope} (also MCP resource `memhive://bulletins/{+scope}`)",
        "MCP get_memory_bulletin",
    ),
    Action.READ_CONTEXT: (
        "POST /v1/context",
        "POST /v1/hooks/claude-code (SessionStart)",
        "MCP get_context",
    ),
    Action.READ_ACTIVITY: ("GET /v1/activity", "MCP recent_activity"),
    Action.READ_STATE: (
        "GET /v1/kv/{scope}/{key}",
        "GET /v1/kv",
        "GET /memory/state (dashboard: a node's key/value entries)",
        "MCP get_state",
        "MCP list_state",
    ),
    Action.WRITE_STATE: (
        "PUT /v1/kv/{scope}/{key}",
        "DELETE /v1/kv/{scope}/{key}",
        "MCP set_state",
        "MCP delete_state",
    ),
    Action.READ_PRODUCTS: (
        "GET /v1/products",
        "GET /v1/products/{id} (a viewer: public products only)",
        "GET /v1/scopes (also the products its readable memories name)",
    ),
    Action.DEFINE_PRODUCT: ("PUT /v1/products/{id} (a product in the principal's tree)",),
    Action.LIST_DEAD_LETTERS: (
        "GET /v1/admin/dead-letters",
        "GET /memory/stats (its dead letters)",
    ),
    Action.MANAGE_TOKENS: (
        "POST /v1/admin/tokens",
        "GET /v1/admin/tokens",
        "DELETE /v1/admin/tokens/{id}",
        "POST /v1/admin/tokens/{id}/rotate",
    ),
    Action.READ_AUDIT: ("GET /v1/admin/audit",),
    Action.REINDEX: ("CLI memhive reindex (operators, over the bus)",),
    Action.EXPORT: ("GET /v1/export (what the caller may read)", "CLI memhive export"),
    Action.IMPORT: (
        "POST /v1/import (each memory where the caller may write)",
        "CLI memhive import",
    ),
}

_READ = "reads it (the scope tree)"
_WRITE_MEMORY = "reads the memory (else 404) and writes its node (else 403)"
_HOME = "at or below its home"

# What an allowed action then needs on the scope-tree nodes it touches (the doc table's
# "on the node" column; scope_tree.py says who reads and writes a node). Rights follow the
# target: whatever changes a memory's standing (replaces it, demotes it, flags it, pins it,
# forgets it) needs its node writable, not only the writer's own node, and a reader never
# loses a memory to a successor it cannot read (supersession.py).
ON_THE_NODE: Mapping[Action, str] = {
    Action.SAVE: "writes the node saved to; with `supersedes`, reads and writes the node of "
    "every memory it supersedes",
    Action.UPDATE: _WRITE_MEMORY + "; consolidate: every source's; pin, clearing flags and "
    "crystallize are changes like the others",
    # A flag lowers trust for every reader (`wrong`: an agent's 0.8 becomes 0.2, below any
    # unflagged match) and bars a procedure from skills: it may bury a memory, so it is a
    # change of its standing.
    Action.FLAG: _WRITE_MEMORY,
    # A confirmation raises trust (up to +0.15, and towards a skill's promotion): it lifts a
    # memory above others for every reader, so it is a change of its standing too.
    Action.CONFIRM: _WRITE_MEMORY,
    Action.FORGET: _WRITE_MEMORY,
    Action.LINK: "reads both ends (else 404) and writes src's node; `updates` also dst's "
    "(it makes dst stale), `contradicts` both (the older end loses)",
    Action.RECALL: _READ,
    Action.READ: _READ,
    Action.READ_EXPIRED: _READ,
    Action.READ_BULLETIN: _READ,
    Action.READ_CONTEXT: _READ,
    Action.READ_ACTIVITY: _READ,
    Action.READ_STATE: _READ,
    Action.WRITE_STATE: "writes the entry's node",
    Action.READ_PRODUCTS: _READ,
    Action.DEFINE_PRODUCT: "reads the product's node",
    Action.LIST_DEAD_LETTERS: "the workspace's",
    Action.MANAGE_TOKENS: f"tokens homed {_HOME}, of a role no higher than its own (a "
    "subtree admin mints no workspace-wide admin; others' tokens look unknown, 404)",
    Action.READ_AUDIT: "the workspace's",
    Action.REINDEX: "the deployment's",
    Action.EXPORT: "reads each memory it exports",
    Action.IMPORT: "writes each memory's node (a restore's edges: as a link's)",
}

# Reached without a principal (and so outside the table's roles): probes, the API docs and
# the dashboard's sign-in, whose pages ask for a token or an OIDC sign-in.
NO_PRINCIPAL: tuple[str, ...] = (
    "GET /healthz",
    "GET /readyz",
    "GET /metrics",
    "GET /openapi.json",
    "GET /docs",
    "GET /docs/assets/{path}",
    "GET /memory/sign-in",
    "POST /memory/sign-in",
    "POST /memory/sign-out",
    "GET /memory/oidc/login",
    "GET /memory/oidc/callback",
    "GET /memory/static/{path}",
)

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
        role = principal.role.value
        article = "an" if role[0] in "aeiou" else "a"
        raise NotAllowed(
            f"{article} {role} may not {action.value.replace('_', ' ')}: only {who} can"
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
    header = "| action | " + " | ".join(r.value for r in roles) + " | on the node | reached from |"
    rule = "|---|" + "---|" * len(roles) + "---|---|"
    rows = [
        f"| {action.value} | "
        + " | ".join("yes" if role in PERMISSIONS[action] else "no" for role in roles)
        + f" | {ON_THE_NODE[action]} | {_entries(REACHED_FROM[action])} |"
        for action in Action
    ]
    open_ = f"Reached without a principal: {_entries(NO_PRINCIPAL)}."
    return "\n".join([header, rule, *rows, "", open_])


def _entries(entries: tuple[str, ...]) -> str:
    """`GET /v1/x` (remark), MCP `tool`, CLI `command`."""
    rendered = []
    for entry in entries:
        name, _, remark = entry.partition(" (")
        surface, _, rest = name.partition(" ")
        code = f"{surface} `{rest}`" if surface in ("MCP", "CLI") else f"`{name}`"
        rendered.append(code + (f" ({remark}" if remark else ""))
    return ", ".join(rendered)


if __name__ == "__main__":
    print(policy_table_markdown())
