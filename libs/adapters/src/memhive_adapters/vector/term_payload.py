"""A vector lane point's payload with a memory's document terms (term_packing.py), and the
terms read back from points: shared by the qdrant-edge and the Qdrant server adapters."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from memhive_domain.memory import Memory
from memhive_ports import DocumentTerms

from memhive_adapters.lane_conditions import stored_fields
from memhive_adapters.vector.term_packing import pack_terms, unpack_terms

log = logging.getLogger(__name__)

TERMS_FIELD = "document_terms"  # no payload index: read by id, never filtered on


def payload_of(memory: Memory, terms: Mapping[str, DocumentTerms] | None) -> dict[str, Any]:
    """A point's payload: the fields the filters read, and the memory's terms if it has any."""
    payload = stored_fields(memory)
    if terms is not None and (mine := terms.get(memory.id)) is not None:
        payload[TERMS_FIELD] = pack_terms(mine)
    return payload


def terms_in(records: Iterable[tuple[str, Mapping[str, Any] | None]]) -> dict[str, DocumentTerms]:
    """The terms of those (id, payload) records that have any. Terms that do not unpack
    are left out (logged): that memory is read by the model instead, never a failed recall."""
    found: dict[str, DocumentTerms] = {}
    for memory_id, payload in records:
        if not payload or not (packed := payload.get(TERMS_FIELD)):
            continue
        try:
            found[memory_id] = unpack_terms(packed)
        except (ValueError, TypeError) as exc:
            log.warning("document terms of %s do not unpack: %s", memory_id, exc)
    return found
