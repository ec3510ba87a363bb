"""Whether a memory's record is in a MemoryFilter's set: the record-side check of a filter.

Lanes apply the filter inside their query; every read that hydrates from the record checks
it again here, because the record is the truth when a lane lags.
"""

from __future__ import annotations

from datetime import datetime

from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter


def is_selected(memory: Memory, memory_filter: MemoryFilter, now: datetime) -> bool:
    """The record is the truth: re-check what the lanes filtered, in case a lane lags."""
    f = memory_filter
    return (
        memory.workspace_id == f.workspace_id
        and not memory.forgotten
        and (f.include_expired or not memory.is_expired(now))
        and not (f.public_only and memory.visibility.value != "public")
        and (f.scope is None or memory.scope is f.scope)
        and (f.product_id is None or memory.product_id == f.product_id)
        and not (f.excluded_products and memory.product_id in f.excluded_products)
        and (f.node is None or memory.scope_ref == f.node)
        and (f.view is None or f.view.admits(memory.scope_ref))
        and (f.kinds is None or memory.kind in f.kinds)
        and (f.tags is None or not f.tags.isdisjoint(memory.tags))
        and (f.created is None or f.created.holds(memory.created_at))
        and (f.occurred is None or f.occurred.holds(memory.occurred))
    )
