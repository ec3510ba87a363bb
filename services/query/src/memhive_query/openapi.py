"""The error answers of the REST API, as declared in its OpenAPI document.

Every error has one body (`ErrorBody`): FastAPI's own 422 schema (HTTPValidationError) is
replaced, because memhive's handlers (errors.py) answer every validation problem, from
FastAPI or from the domain, in this shape.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Problem(BaseModel):
    field: str = Field(description="the request field to fix, e.g. body, tags, cursor")
    message: str


class ErrorBody(BaseModel):
    detail: str = Field(description="what went wrong, in a sentence")
    problems: list[Problem] = Field(
        default_factory=list, description="one entry per invalid field (422); else empty"
    )


class NearDuplicatesBody(ErrorBody):
    similar: list[dict[str, Any]] = Field(
        default_factory=list, description="the near-duplicates: memory JSON plus `similarity`"
    )


class RevisionConflictBody(ErrorBody):
    current_revision: int | None = Field(
        None, description="the entry's revision now; null when it does not exist"
    )


_MEANING = {
    401: "missing or unknown bearer token",
    403: "this token may not do this (read-only, or not a member)",
    404: "not found: no such memory, product, token or path visible to this token",
    405: "this path does not support the method (see the Allow header)",
    409: "refused because of the current state (near-duplicates, an end forgotten meanwhile, "
    "a key/value entry not at the expected revision)",
    413: "the request body is larger than the gateway accepts",
    422: "invalid input: `problems` names each field",
    503: "a service behind the gateway did not answer in time (tokens: the ingest service), "
    "or the bus does not answer or cannot take writes for now (stalled, reconnecting, a "
    "stream electing its leader): nothing was done; retry after `Retry-After` seconds",
    507: "a write refused because memhive's disk is nearly full (below its low-space "
    "watermark): nothing was stored; reads still work, and writes resume by themselves once "
    "space is freed",
}


ACCEPTED = {
    202: {"description": "accepted: durable on the bus, not yet applied when the wait ended"}
}


def errors(*codes: int, conflict: type[ErrorBody] = ErrorBody) -> dict[int | str, dict[str, Any]]:
    """The `responses` entries of a route that can answer these error codes."""
    return {
        code: {"model": conflict if code == 409 else ErrorBody, "description": _MEANING[code]}
        for code in codes
    }
