"""Which way a classifier's edge runs: from the newer memory to the older.

For updates and contradicts that is their meaning (the newer one wins). related_to has no
direction, so it takes the same canonical one: whichever of the two memories is classified
first, both propose the same edge, and ingest stores it once.
"""

from __future__ import annotations

from memhive_domain.memory import Memory


def newer_first(a: Memory, b: Memory) -> tuple[Memory, Memory]:
    """(newer, older); the id breaks a tie in created_at, so the order never depends on a."""
    return (a, b) if (a.created_at, a.id) > (b.created_at, b.id) else (b, a)
