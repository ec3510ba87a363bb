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
from memhive_domain.scopes import Scope, Visibility

from tests.integration.lanes.memories import NOW, a_memory, blend

EXPIRY = NOW + timedelta(hours=1)
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
    }
    return {name: a_memory(f"{name} by the {WORD}", **t) for name, t in traits.items()}


def vector_for(position: int) -> list[float]:
    return blend({0: 1.0, 1 + position % 7: 0.1 * (1 + position // 7)})


MINE = {"plain", "alpha", "beta", "todo", "red", "red_blue", "green", "public", "expiring"}


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
    _case("scope-global", MINE - {"alpha", "beta"}, scope=Scope.GLOBAL),
    _case("scope-product", {"alpha", "beta"}, scope=Scope.PRODUCT),
    _case("product", {"alpha"}, scope=Scope.PRODUCT, product_id="alpha"),
    _case("kind", {"todo"}, kinds=frozenset({MemoryKind.TODO})),
    _case("kinds-any", MINE, kinds=frozenset({MemoryKind.TODO, MemoryKind.FACT})),
    _case("tag", {"red", "red_blue"}, tags=frozenset({"red"})),
    _case("tags-any", {"red_blue", "green"}, tags=frozenset({"blue", "green"})),
    _case("public-only", {"public"}, public_only=True),
    _case("live-before-expiry", MINE, live_at=EXPIRY - timedelta(seconds=1)),
    _case("expired-at-expiry", MINE - {"expiring"}, live_at=EXPIRY),
    _case("expired-after", MINE - {"expiring"}, live_at=EXPIRY + timedelta(days=1)),
    _case(
        "everything-at-once",
        {"public"},
        scope=Scope.GLOBAL,
        kinds=frozenset({MemoryKind.FACT}),
        public_only=True,
        live_at=EXPIRY,
    ),
]
