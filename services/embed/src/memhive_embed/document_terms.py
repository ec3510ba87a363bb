"""Memories' document terms for the vector lane, when the rerank option keeps them."""

from __future__ import annotations

from collections.abc import Sequence

from memhive_domain.memory import Memory
from memhive_ports import DocumentTerms, TermWeights


async def terms_of(
    terms: TermWeights | None, memories: Sequence[Memory]
) -> dict[str, DocumentTerms] | None:
    """The memories' document terms by id, in one call (None when memories keep none)."""
    if terms is None or not memories:
        return None
    found = await terms.document_terms([m.body for m in memories])
    return {m.id: t for m, t in zip(memories, found, strict=True)}
