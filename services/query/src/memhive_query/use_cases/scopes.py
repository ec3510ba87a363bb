"""Use case: the scopes a principal reads something in (GET /v1/scopes, MCP's resources/list):
the workspace's root, and every product it may see.

A product is there once it has a record the principal may see (`PUT /v1/products`) or once a
memory the principal may read names it: most products are never recorded (a save names them).
Those are found in the lexical lane one product per query: the newest readable product memory
outside the products found so far, until none is left. The cost grows with the products found,
not with the memories stored, and stops at MAX_FOUND (`complete` is then False).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter, view_of
from memhive_domain.scopes import Scope
from memhive_domain.selection import is_selected
from memhive_ports import Clock, LexicalIndex
from memhive_ports.store import MemoryReader

from memhive_query.use_cases.products import Products

MAX_FOUND = 100
# Ids read per query: a lane behind a forget may list memories the record no longer shows.
PROBE = 8


@dataclass(frozen=True, slots=True)
class ProductScope:
    product_id: str
    name: str | None
    recorded: bool  # it has a PUT /v1/products record


@dataclass(frozen=True, slots=True)
class ReadableScopes:
    products: list[ProductScope]  # by product id
    complete: bool  # False: MAX_FOUND products found from memories, there may be more


class ScopesOfPrincipal:
    def __init__(
        self, products: Products, lexical: LexicalIndex, records: MemoryReader, clock: Clock
    ) -> None:
        self._products, self._lexical, self._records = products, lexical, records
        self._clock = clock

    async def __call__(self, principal: Principal) -> ReadableScopes:
        require(principal, Action.READ_PRODUCTS)
        recorded = {p.product_id: p for p in await self._products.list(principal)}
        named, complete = await self._named_by_memories(principal)
        products = [
            ProductScope(i, recorded[i].name if i in recorded else None, i in recorded)
            for i in sorted(set(recorded) | named)
        ]
        return ReadableScopes(products, complete)

    async def _named_by_memories(self, principal: Principal) -> tuple[set[str], bool]:
        now = self._clock.now()
        readable = replace(view_of(principal), scope=Scope.PRODUCT, live_at=now)
        found: set[str] = set()
        while len(found) < MAX_FOUND:
            others = replace(readable, excluded_products=frozenset(found) or None)
            product, known = await self._newest_product(principal.workspace_id, others, now)
            if product is None:
                return found, known
            found.add(product)
        return found, False

    async def _newest_product(
        self, workspace_id: str, memory_filter: MemoryFilter, now: datetime
    ) -> tuple[str | None, bool]:
        """(the product of the newest memory the filter admits, True); (None, True) when
        there is none; (None, False) when the lane listed only memories the record no
        longer shows, so whether others exist is unknown."""
        listed = await self._lexical.list_ids(memory_filter, None, PROBE)
        records = await self._records.get_many(workspace_id, [p.memory_id for p in listed])
        for position in listed:
            stored = records.get(position.memory_id)
            if stored is not None and is_selected(stored.memory, memory_filter, now):
                return stored.memory.product_id, True
        return None, not listed
