"""What a MemoryFilter means as flat field conditions, and the fields every lane stores.

Both lanes and all four engines store the same flat fields, so the meaning of a filter is
written once here and each adapter only translates these conditions into its own query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import Visibility

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


Condition = Equals | AnyOf | After


def epoch_seconds(moment: datetime) -> float:
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return aware.timestamp()


def stored_fields(memory: Memory) -> dict[str, object]:
    """The filterable fields of a memory. Flags are 0/1 integers: qdrant-edge 0.9 never
    matches a boolean filter value."""
    fields: dict[str, object] = {
        "workspace_id": memory.workspace_id,
        "scope": memory.scope.value,
        "kind": memory.kind.value,
        "tags": list(memory.tags),
        "public": int(memory.visibility is Visibility.PUBLIC),
        "expires_at": NEVER if memory.expires_at is None else epoch_seconds(memory.expires_at),
        "created_at": epoch_seconds(memory.created_at),
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
    if f.kinds is not None:
        conditions.append(AnyOf("kind", tuple(sorted(k.value for k in f.kinds))))
    if f.tags is not None:
        conditions.append(AnyOf("tags", tuple(sorted(f.tags))))
    if f.public_only:
        conditions.append(Equals("public", 1))
    if f.live_at is not None:
        conditions.append(After("expires_at", epoch_seconds(f.live_at)))
    return conditions
