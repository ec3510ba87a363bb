"""What a MemoryFilter means as field conditions, and the fields every lane stores.

Both lanes and all four engines store the same flat fields, so the meaning of a filter is
written once here and each adapter only translates these conditions into its own query.

The scope tree lives in the keyword field `scope`, which holds a set of tokens: the legacy
value (`global` or `product`), `node:<path>`, `in:<path>` for the node and each ancestor,
`nested` (a team or agent node) and `local` (an agent's node). Reusing that field keeps
lanes built before the tree valid: none of their documents is nested, and every condition
on the root and product levels is written with the legacy values and `product_id`, so no
schema, mapping or payload index changes and no reindex is needed on upgrade.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scope_tree import TreeView
from memhive_domain.scopes import Scope, ScopeRef, Visibility
from memhive_domain.time_range import TimeRange

# The version of the fields below. Bumped whenever a lane must store something new: a lane
# generation of an older layout is rebuilt from the record (runtime/lane_generations.py).
# 1: the first fields; 2: occurred_at.
LAYOUT = 2

# 9999-12-31T23:59:59Z. A memory without expiry gets this, so "live at t" is one range
# condition (expires_at > t) in every engine instead of an "is missing or after" pair.
NEVER = 253402300799.0


@dataclass(frozen=True, slots=True)
class Equals:
    field: str
    value: str | int


@dataclass(frozen=True, slots=True)
class AnyOf:
    field: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class After:
    """The field holds an epoch-seconds value strictly greater than `moment`."""

    field: str
    moment: float


@dataclass(frozen=True, slots=True)
class Between:
    """The field holds an epoch-seconds value in [lowest, highest): either end may be open."""

    field: str
    lowest: float | None
    highest: float | None


@dataclass(frozen=True, slots=True)
class Excludes:
    """The field holds none of `values` (a document without the field passes)."""

    field: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AnyGroup:
    """At least one group holds; a group holds when all of its conditions hold."""

    groups: tuple[tuple[Condition, ...], ...]


Condition = Equals | AnyOf | After | Between | Excludes | AnyGroup

NESTED, LOCAL = "nested", "local"


def epoch_seconds(moment: datetime) -> float:
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return aware.timestamp()


def stored_fields(memory: Memory) -> dict[str, object]:
    """The filterable fields of a memory. Flags are 0/1 integers: qdrant-edge 0.9 never
    matches a boolean filter value."""
    fields: dict[str, object] = {
        "workspace_id": memory.workspace_id,
        "scope": scope_tokens(memory.scope_ref),
        "kind": memory.kind.value,
        "tags": list(memory.tags),
        "public": int(memory.visibility is Visibility.PUBLIC),
        "expires_at": NEVER if memory.expires_at is None else epoch_seconds(memory.expires_at),
        "created_at": epoch_seconds(memory.created_at),
        "occurred_at": epoch_seconds(memory.occurred),
    }
    if memory.product_id:
        fields["product_id"] = memory.product_id
    return fields


def conditions_of(memory_filter: MemoryFilter) -> list[Condition]:
    """Every condition must hold; together they are the whole filter."""
    f = memory_filter
    conditions: list[Condition] = [Equals("workspace_id", f.workspace_id)]
    if f.scope is not None:
        conditions.append(Equals("scope", f.scope.value))
    if f.product_id:
        conditions.append(Equals("product_id", f.product_id))
    if f.excluded_products:
        conditions.append(Excludes("product_id", tuple(sorted(f.excluded_products))))
    if f.node is not None:
        conditions += at_node(f.node)
    if f.view is not None:
        conditions += readable_by(f.view)
    if f.kinds is not None:
        conditions.append(AnyOf("kind", tuple(sorted(k.value for k in f.kinds))))
    if f.tags is not None:
        conditions.append(AnyOf("tags", tuple(sorted(f.tags))))
    if f.public_only:
        conditions.append(Equals("public", 1))
    if f.live_at is not None:
        conditions.append(After("expires_at", epoch_seconds(f.live_at)))
    if f.created is not None:
        conditions.append(_between("created_at", f.created))
    if f.occurred is not None:
        conditions.append(_between("occurred_at", f.occurred))
    return conditions


def holds(condition: Condition, fields: dict[str, object]) -> bool:
    """Whether a memory's `stored_fields` meet one condition: the reading every engine's
    translation must agree with, and the one the tantivy lane applies to the writes it has
    not committed yet (`lexical/uncommitted.py`)."""
    values = _values(fields.get(getattr(condition, "field", "")))
    match condition:
        case Equals(_, value):
            return value in values
        case AnyOf(_, wanted):
            return not values.isdisjoint(wanted)
        case After(_, moment):
            return any(float(v) > moment for v in values)
        case Between(_, lowest, highest):
            return any(
                (lowest is None or float(v) >= lowest) and (highest is None or float(v) < highest)
                for v in values
            )
        case Excludes(_, unwanted):
            return values.isdisjoint(unwanted)
        case AnyGroup(groups):
            return any(all(holds(c, fields) for c in group) for group in groups)
    raise TypeError(f"unknown condition {condition!r}")


def _values(value: object) -> set:
    if value is None:
        return set()
    return set(value) if isinstance(value, list) else {value}


def _between(field: str, window: TimeRange) -> Between:
    lowest, highest = window.after, window.before
    return Between(
        field,
        None if lowest is None else epoch_seconds(lowest),
        None if highest is None else epoch_seconds(highest),
    )


def scope_tokens(node: ScopeRef) -> list[str]:
    tokens = [node.scope.value, f"node:{node.key}", *(f"in:{n.key}" for n in node.lineage)]
    if node.is_nested:
        tokens.append(NESTED)
    if node.is_local:
        tokens.append(LOCAL)
    return tokens


def at_node(node: ScopeRef) -> tuple[Condition, ...]:
    """Memories at exactly this node; the first level in the terms pre-tree lanes stored.

    A product node needs no `scope` = product beside its `product_id`: only a product's
    memories have one (`scopes.scope_problems`). One condition fewer is what lets
    qdrant-edge answer the classifier's search from its payload index (`shared_by_all.py`):
    1.0 against 1.7 ms at 100k points (docs/benchmarks.md, "One condition fewer")."""
    if node.is_nested:
        return (Equals("scope", f"node:{node.key}"),)
    if node.scope is Scope.GLOBAL:
        return (Equals("scope", Scope.GLOBAL.value), Excludes("scope", (NESTED,)))
    return (Equals("product_id", node.product_id or ""), Excludes("scope", (NESTED,)))


def in_subtree(node: ScopeRef) -> tuple[Condition, ...]:
    """Memories at this node or below it."""
    if node.is_nested:
        return (Equals("scope", f"in:{node.key}"),)
    if node.product_id:
        return (Equals("product_id", node.product_id),)
    return ()


def readable_by(view: TreeView) -> list[Condition]:
    """The home's lineage, plus its subtree (without agents' LOCAL nodes unless the view
    reads them): one AnyGroup, or less where it simplifies."""
    home = view.home
    if view.is_everything:
        return []
    below = in_subtree(home) + (() if view.reads_local_below else (Excludes("scope", (LOCAL,)),))
    if home.is_root:
        return list(below)
    above = [at_node(n) for n in home.lineage[:-1]]
    if home.is_local:  # an agent's node is a leaf: its subtree is itself
        return [AnyGroup((*above, at_node(home)))]
    return [AnyGroup((*above, below))]
