"""A population that differs along every filter dimension, and what each filter must return.

Every body contains "harbour" and every vector leans on axis 0, so a search for either
reaches every memory and the result set is decided by the filter alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scope_tree import TreeView
from memhive_domain.scopes import Scope, ScopeRef, Visibility, parse_scope_path
from memhive_domain.time_range import TimeRange

from tests.integration.lanes.memories import NOW, a_memory, blend

EXPIRY = NOW + timedelta(hours=1)
LONG_AGO = NOW - timedelta(days=400)
RECENT = NOW - timedelta(hours=2)
WORD = "harbour"


def population() -> dict[str, Memory]:
    traits: dict[str, dict[str, object]] = {
        "plain": {},
        "elsewhere": {"workspace_id": "ws-2"},
        "alpha": {"product_id": "alpha"},
        "beta": {"product_id": "beta"},
        "todo": {"kind": MemoryKind.TODO},
        "red": {"tags": ("red",)},
        "red_blue": {"tags": ("red", "blue")},
        "green": {"tags": ("green",)},
        "public": {"visibility": Visibility.PUBLIC},
        "expiring": {"expires_at": EXPIRY},
        # Time: saved long ago; said to have happened long ago; happened two hours ago.
        "old": {"created_at": NOW - timedelta(days=30)},
        "long_ago": {"occurred_at": LONG_AGO},
        "recent": {"occurred_at": RECENT},
        # The scope tree below the first level.
        "mobile": _at("product:alpha/team:mobile"),
        "bob": _at("product:alpha/team:mobile/agent:bob"),
        "eve": _at("product:alpha/team:mobile/agent:eve"),
        "ops": _at("team:ops"),
        "carl": _at("agent:carl"),
    }
    return {name: a_memory(f"{name} by the {WORD}", **t) for name, t in traits.items()}


def _at(path: str) -> dict[str, object]:
    node = node_at(path)
    return {
        "scope": node.scope,
        "product_id": node.product_id,
        "team_id": node.team_id,
        "agent_id": node.agent_id,
    }


def node_at(path: str) -> ScopeRef:
    node = parse_scope_path(path, [])
    assert node is not None, path
    return node


def vector_for(position: int) -> list[float]:
    return blend({0: 1.0, 1 + position % 7: 0.1 * (1 + position // 7)})


AT_ROOT = {
    "plain",
    "todo",
    "red",
    "red_blue",
    "green",
    "public",
    "expiring",
    "old",
    "long_ago",
    "recent",
}
MINE = AT_ROOT | {"alpha", "beta", "mobile", "bob", "eve", "ops", "carl"}
LOCAL = {"bob", "eve", "carl"}


def _view(path: str, *, admin: bool = False) -> TreeView:
    return TreeView(node_at(path), reads_local_below=admin)


@dataclass(frozen=True)
class FilterCase:
    name: str
    memory_filter: MemoryFilter
    expected: frozenset[str]


def _case(name: str, expected: set[str], **narrowing: object) -> FilterCase:
    return FilterCase(name, MemoryFilter(workspace_id="ws-1", **narrowing), frozenset(expected))


FILTER_CASES = [
    _case("workspace", MINE),
    FilterCase("other-workspace", MemoryFilter(workspace_id="ws-2"), frozenset({"elsewhere"})),
    FilterCase("unknown-workspace", MemoryFilter(workspace_id="ws-9"), frozenset()),
    _case("scope-global", AT_ROOT | {"ops", "carl"}, scope=Scope.GLOBAL),
    _case("scope-product", {"alpha", "beta", "mobile", "bob", "eve"}, scope=Scope.PRODUCT),
    _case("product", {"alpha", "mobile", "bob", "eve"}, scope=Scope.PRODUCT, product_id="alpha"),
    _case(
        "products-but-one",
        {"beta"},
        scope=Scope.PRODUCT,
        excluded_products=frozenset({"alpha"}),
    ),
    _case(
        "products-but-all",
        set(),
        excluded_products=frozenset({"alpha", "beta"}),
        scope=Scope.PRODUCT,
    ),
    _case(
        "but-a-product",
        MINE - {"alpha", "mobile", "bob", "eve"},
        excluded_products=frozenset({"alpha"}),
    ),
    _case("node-global", AT_ROOT, node=node_at("global")),
    _case("node-product", {"alpha"}, node=node_at("product:alpha")),
    _case("node-team", {"mobile"}, node=node_at("product:alpha/team:mobile")),
    _case("node-agent", {"bob"}, node=node_at("product:alpha/team:mobile/agent:bob")),
    _case("node-root-team", {"ops"}, node=node_at("team:ops")),
    _case("view-root-member", MINE - LOCAL, view=_view("global")),
    _case("view-root-admin", MINE, view=_view("global", admin=True)),
    _case("view-product", AT_ROOT | {"alpha", "mobile"}, view=_view("product:alpha")),
    _case("view-team", AT_ROOT | {"alpha", "mobile"}, view=_view("product:alpha/team:mobile")),
    _case(
        "view-team-admin",
        AT_ROOT | {"alpha", "mobile", "bob", "eve"},
        view=_view("product:alpha/team:mobile", admin=True),
    ),
    _case(
        "view-agent",
        AT_ROOT | {"alpha", "mobile", "bob"},
        view=_view("product:alpha/team:mobile/agent:bob"),
    ),
    _case("view-root-team", AT_ROOT | {"ops"}, view=_view("team:ops")),
    _case("view-root-agent", AT_ROOT | {"carl"}, view=_view("agent:carl")),
    _case(
        "view-agent-node-team",
        {"mobile"},
        view=_view("product:alpha/team:mobile/agent:bob"),
        node=node_at("product:alpha/team:mobile"),
    ),
    _case(
        "view-agent-node-sibling",
        set(),
        view=_view("product:alpha/team:mobile/agent:bob"),
        node=node_at("product:alpha/team:mobile/agent:eve"),
    ),
    _case("kind", {"todo"}, kinds=frozenset({MemoryKind.TODO})),
    _case("kinds-any", MINE, kinds=frozenset({MemoryKind.TODO, MemoryKind.FACT})),
    _case("tag", {"red", "red_blue"}, tags=frozenset({"red"})),
    _case("tags-any", {"red_blue", "green"}, tags=frozenset({"blue", "green"})),
    _case("public-only", {"public"}, public_only=True),
    _case("live-before-expiry", MINE, live_at=EXPIRY - timedelta(seconds=1)),
    _case("expired-at-expiry", MINE - {"expiring"}, live_at=EXPIRY),
    _case("expired-after", MINE - {"expiring"}, live_at=EXPIRY + timedelta(days=1)),
    # Saved (created_at) and happened (occurred_at, else created_at), half-open [after, before).
    _case("created-since", MINE - {"old"}, created=TimeRange(NOW - timedelta(days=10))),
    _case("created-before", {"old"}, created=TimeRange(before=NOW - timedelta(days=10))),
    _case("occurred-long-ago", {"long_ago"}, occurred=TimeRange(before=NOW - timedelta(days=100))),
    _case(
        "occurred-last-10-days",
        MINE - {"old", "long_ago"},
        occurred=TimeRange(NOW - timedelta(days=10), NOW),
    ),
    _case("occurred-from-its-moment", {"recent"}, occurred=TimeRange(RECENT)),
    _case(
        "occurred-until-its-moment",
        set(),
        occurred=TimeRange(RECENT - timedelta(microseconds=1), RECENT),
    ),
    _case(
        "occurred-and-created",
        {"long_ago"},
        occurred=TimeRange(before=NOW - timedelta(days=100)),
        created=TimeRange(NOW - timedelta(days=2)),
    ),
    _case(
        "everything-at-once",
        {"public"},
        scope=Scope.GLOBAL,
        kinds=frozenset({MemoryKind.FACT}),
        public_only=True,
        live_at=EXPIRY,
    ),
]
