"""Counters of LLM spend, one per window, shared by whoever spends against the same bound."""

from __future__ import annotations

from typing import Protocol


class SpendCounters(Protocol):
    """Counters keyed by name (`<consumer>.<window>`, see memhive_domain.spend). An adapter
    shared by several processes makes `add_within` atomic across all of them."""

    async def add_within(self, key: str, amount: int, bound: int) -> bool:
        """Add `amount` unless the counter would pass `bound`; False: nothing was added."""
        ...

    async def add(self, key: str, amount: int) -> None:
        """Add `amount` unconditionally (what was really spent)."""
        ...

    async def total(self, key: str) -> int:
        """The counter's value; 0 for a window nobody spent in."""
        ...
