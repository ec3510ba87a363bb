"""The REST shapes: request bodies (loose types: the domain gives the messages), memory JSON."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from memhive_domain.edges import Edge, EdgeDraft
from memhive_domain.memory import Memory, MemoryDraft
from memhive_domain.ranking import RankedMemory
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.timestamps import utc_iso


class SaveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(
        description="fact, preference, decision, identity, event, observation, goal, todo, "
        "or procedure"
    )
    body: str = Field(description="what to remember, 1..4000 characters")
    importance: float | None = Field(None, description="0..1; omitted: the kind's default")
    pinned: bool = False
    tags: list[str] = Field(default_factory=list)
    scope: str | None = Field(
        None, description="global or product; product_id alone implies product"
    )
    product_id: str | None = None
    visibility: str = Field("private", description="private (members only) or public")
    source: str = "agent"
    source_ref: str | None = None
    expires_at: datetime | None = None
    force: bool = Field(False, description="save even when near-duplicates exist")
    supersedes: list[str] = Field(default_factory=list, description="ids this memory updates")

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            kind=self.kind,
            body=self.body,
            importance=self.importance,
            pinned=self.pinned,
            tags=tuple(self.tags),
            scope=self.scope,
            product_id=self.product_id,
            visibility=self.visibility,
            source=self.source,
            source_ref=self.source_ref,
            expires_at=self.expires_at,
        )


class UpdateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pinned: bool = Field(description="pinned memories lead their scope's bulletin")


class RecallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str
    scope: str | None = None
    product_id: str | None = None
    kinds: list[str] | None = None
    tags: list[str] | None = None
    max_results: int | None = Field(None, description="1..20, default 6")
    include_superseded: bool = False
    lanes: list[Literal["vector", "lexical"]] | None = Field(
        None, description="for diagnostics and benchmarks: search only these lanes"
    )


class EdgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    src_id: str = Field(description="the memory the edge starts from, e.g. the newer fact")
    dst_id: str = Field(description="the memory it points to, e.g. the older fact")
    kind: str = Field(description="updates, contradicts or related_to")
    weight: float | None = Field(None, description="0..1; omitted: 1 (you are sure)")
    rationale: str = Field("", description="why, in a sentence; at most 500 characters")

    def draft(self) -> EdgeDraft:
        return EdgeDraft(self.src_id, self.dst_id, self.kind, self.weight, self.rationale)


def edge_json(edge: Edge) -> dict[str, Any]:
    return {
        "src_id": edge.src_id,
        "dst_id": edge.dst_id,
        "kind": edge.kind.value,
        "weight": edge.weight,
        "created_by": edge.created_by,
        "creator_kind": edge.creator_kind.value,
        "rationale": edge.rationale,
        "created_at": utc_iso(edge.created_at),
    }


def memory_json(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "kind": memory.kind.value,
        "body": memory.body,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "tags": list(memory.tags),
        "scope": memory.scope.value,
        "product_id": memory.product_id,
        "visibility": memory.visibility.value,
        "source": memory.source.value,
        "source_ref": memory.source_ref,
        "created_by": memory.created_by,
        "created_at": utc_iso(memory.created_at),
        "updated_at": utc_iso(memory.updated_at),
        "expires_at": utc_iso(memory.expires_at),
        "revision": memory.revision,
        "access_count": memory.access_count,
        "last_accessed_at": utc_iso(memory.last_accessed_at),
    }


def recalled_json(ranked: RankedMemory) -> dict[str, Any]:
    """A recall result; `replaces` and `superseded_by` only when edge resolution set them."""
    body = memory_json(ranked.memory) | {
        "score": round(ranked.score, 6),
        "lane_ranks": dict(ranked.ranks),
    }
    if replaces := getattr(ranked, "replaces", ()):
        body["replaces"] = list(replaces)
    if superseded_by := getattr(ranked, "superseded_by", None):
        body["superseded_by"] = superseded_by
    return body
