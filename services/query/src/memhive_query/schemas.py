"""The REST shapes: request bodies (loose types: the domain gives the messages), memory JSON.

The length limits here are coarse outer bounds (generous multiples of the domain's), so no
oversized list or string is even handed to the domain; the domain's rules are the real ones.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from fastapi.responses import JSONResponse
from memhive_domain.changes import MemoryChanges
from memhive_domain.consolidation import ConsolidationRequest
from memhive_domain.curation import Flag
from memhive_domain.edges import Edge, EdgeDraft
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kv import KvEntry
from memhive_domain.memory import Memory, MemoryDraft
from memhive_domain.ranking import RankedMemory
from memhive_domain.trust import score
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.skills import SkillRequest
from memhive_query.use_cases.update import UpdateOutcome


class SaveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(
        description="fact, preference, decision, identity, event, observation, goal, todo, "
        "or procedure"
    )
    body: str = Field(description="what to remember, 1..4000 characters", max_length=16_000)
    importance: float | None = Field(None, description="0..1; omitted: the kind's default")
    pinned: bool = False
    tags: list[str] = Field(default_factory=list, description="at most 32", max_length=128)
    scope: str | None = Field(
        None,
        description="global or product; product_id alone implies product; nothing at all: "
        "the token's home node",
        max_length=64,
    )
    product_id: str | None = Field(None, max_length=512)
    scope_path: str | None = Field(
        None,
        description="a node of the scope tree, e.g. 'product:ios/team:mobile/agent:bob'; "
        "scope/product_id, if also given, must agree",
        max_length=512,
    )
    visibility: str | None = Field(
        None,
        description="private (members only) or public; omitted: global is public, a product "
        "and its teams take the product's visibility, anything else is private",
        max_length=64,
    )
    source: str = Field("agent", max_length=64)
    source_ref: str | None = Field(None, description="at most 512 characters", max_length=2048)
    expires_at: datetime | None = None
    occurred_at: datetime | None = Field(
        None,
        description="when the remembered thing happened (ISO 8601), if not now; the same "
        "words at another time are another memory",
    )
    force: bool = Field(False, description="save even when near-duplicates exist")
    supersedes: list[str] = Field(
        default_factory=list, description="ids this memory updates, at most 20", max_length=100
    )

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            kind=self.kind,
            body=self.body,
            importance=self.importance,
            pinned=self.pinned,
            tags=tuple(self.tags),
            scope=self.scope,
            product_id=self.product_id,
            scope_path=self.scope_path,
            visibility=self.visibility,
            source=self.source,
            source_ref=self.source_ref,
            expires_at=self.expires_at,
            occurred_at=self.occurred_at,
        )


class UpdateRequest(BaseModel):
    """Only the fields given change; `expires_at: null` removes the expiry, `occurred_at:
    null` makes it "when it was saved" again."""

    model_config = ConfigDict(extra="forbid")

    body: str | None = Field(
        None,
        description="the new text, 1..4000 characters: re-embedded, checked for "
        "near-duplicates like a save",
        max_length=16_000,
    )
    importance: float | None = Field(None, description="0..1")
    tags: list[str] | None = Field(
        None, description="replaces the tags; at most 32", max_length=128
    )
    pinned: bool | None = Field(None, description="pinned memories lead their scope's bulletin")
    visibility: str | None = Field(None, description="private or public", max_length=64)
    expires_at: datetime | None = Field(None, description="a future time; null: never expires")
    occurred_at: datetime | None = Field(
        None, description="when it happened; null: when it was saved"
    )
    force: bool = Field(False, description="change the body even when near-duplicates exist")

    def changes(self) -> MemoryChanges:
        return MemoryChanges(
            body=self.body,
            importance=self.importance,
            tags=None if self.tags is None else tuple(self.tags),
            pinned=self.pinned,
            visibility=self.visibility,
            expires_at=self.expires_at,
            clear_expiry="expires_at" in self.model_fields_set and self.expires_at is None,
            occurred_at=self.occurred_at,
            clear_occurred_at="occurred_at" in self.model_fields_set and self.occurred_at is None,
        )


class ConsolidateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(
        description="the memories to merge, 2..20, at one scope node", max_length=100
    )
    body: str | None = Field(
        None,
        description="the merged memory; omitted with summarize: written by the configured LLM",
        max_length=16_000,
    )
    summarize: bool = Field(False, description="let the configured LLM write the body")
    kind: str | None = Field(None, description="omitted: the sources' common kind", max_length=64)
    importance: float | None = Field(None, description="0..1; omitted: the highest source's")
    tags: list[str] | None = Field(None, description="omitted: the sources' tags", max_length=128)

    def consolidation(self) -> ConsolidationRequest:
        if self.body is None and not self.summarize:
            raise InvalidInput([FieldProblem("body", "required unless summarize is true")])
        return ConsolidationRequest(
            ids=self.ids,
            body=self.body,
            kind=self.kind,
            importance=self.importance,
            tags=None if self.tags is None else tuple(self.tags),
        )


class CrystallizeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    also: list[str] = Field(
        default_factory=list,
        description="more procedures for the same skill, at most 19",
        max_length=100,
    )
    name: str | None = Field(
        None,
        description="the skill's name (lowercase words joined by '-'); omitted: from the body",
        max_length=256,
    )
    description: str | None = Field(
        None, description="when to use the skill; omitted: the body", max_length=4096
    )

    def skill(self, memory_id: str) -> SkillRequest:
        return SkillRequest(memory_id, tuple(self.also), self.name, self.description)


class FlagRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="wrong, outdated or unverified", max_length=64)
    reason: str = Field(description="why, 1..500 characters", max_length=2000)


class TimeWindow(BaseModel):
    """When memories were saved and when what they say happened: [after, before)."""

    created_after: datetime | None = Field(None, description="saved at or after (ISO 8601)")
    created_before: datetime | None = Field(None, description="saved before")
    occurred_after: datetime | None = Field(
        None, description="happened at or after (occurred_at, else when saved)"
    )
    occurred_before: datetime | None = Field(None, description="happened before")

    def window(self) -> dict[str, datetime | None]:
        """The four bounds, as SelectionRequest names them."""
        return {name: getattr(self, name) for name in TimeWindow.model_fields}


class RecallRequest(TimeWindow):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(description="1..2000 characters", max_length=8000)
    scope: str | None = Field(None, max_length=64)
    product_id: str | None = Field(None, max_length=512)
    scope_path: str | None = Field(
        None,
        description="a node of the scope tree, e.g. 'product:ios/team:mobile/agent:bob'; "
        "scope/product_id, if also given, must agree",
        max_length=512,
    )
    kinds: list[str] | None = Field(None, max_length=64)
    tags: list[str] | None = Field(None, description="any of these, at most 32", max_length=128)
    max_results: int | None = Field(None, description="1..20, default 6")
    include_superseded: bool = False
    min_confidence: float | None = Field(
        None,
        description="0..1: leave out results less likely than this to answer the query "
        "(each result's `confidence`); none left means nothing stored answers it. "
        "Omitted: 0, every result (MCP recall_memory defaults to 0.01)",
    )
    lanes: list[Literal["vector", "lexical"]] | None = Field(
        None, description="for diagnostics and benchmarks: search only these lanes", max_length=2
    )


class EdgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    src_id: str = Field(
        description="the memory the edge starts from, e.g. the newer fact", max_length=512
    )
    dst_id: str = Field(description="the memory it points to, e.g. the older fact", max_length=512)
    kind: str = Field(description="updates, contradicts or related_to", max_length=64)
    weight: float | None = Field(None, description="0..1; omitted: 1 (you are sure)")
    rationale: str = Field(
        "", description="why, in a sentence; at most 500 characters", max_length=2000
    )

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
        "scope_path": memory.scope_ref.key,
        "team_id": memory.team_id,
        "agent_id": memory.agent_id,
        "visibility": memory.visibility.value,
        "source": memory.source.value,
        "source_ref": memory.source_ref,
        "created_by": memory.created_by,
        "created_at": utc_iso(memory.created_at),
        "updated_at": utc_iso(memory.updated_at),
        "expires_at": utc_iso(memory.expires_at),
        "occurred_at": utc_iso(memory.occurred_at),
        "revision": memory.revision,
        "access_count": memory.access_count,
        "last_accessed_at": utc_iso(memory.last_accessed_at),
    } | curation_json(memory)


def curation_json(memory: Memory) -> dict[str, Any]:
    """Trust and staleness as of now (pure functions of the record: see domain/trust.py)."""
    state, scores = memory.curation, score(memory, datetime.now(UTC))
    return {
        "trust": scores.trust,
        "staleness": scores.staleness,
        "flags": [flag_json(f) for f in state.flags],
        "confirmations": state.confirmations,
        "corrections": state.corrections,
        "promoted_at": utc_iso(state.promoted_at),
    }


def flag_json(flag: Flag) -> dict[str, Any]:
    return {
        "id": flag.id,
        "kind": flag.kind.value,
        "reason": flag.reason,
        "flagged_by": flag.flagged_by,
        "flagged_at": utc_iso(flag.flagged_at),
    }


def recalled_json(ranked: RankedMemory) -> dict[str, Any]:
    """A recall result; `replaces` and `superseded_by` only when edge resolution set them."""
    body = memory_json(ranked.memory) | {
        "score": round(ranked.score, 6),
        "confidence": round(getattr(ranked, "confidence", 0.0), 4),
        "lane_ranks": dict(ranked.ranks),
    }
    if replaces := getattr(ranked, "replaces", ()):
        body["replaces"] = list(replaces)
    if superseded_by := getattr(ranked, "superseded_by", None):
        body["superseded_by"] = superseded_by
    return body


def update_answer(outcome: UpdateOutcome, status_code: int = 200, **extra: Any) -> JSONResponse:
    """An update's answer: 202 while it is still on its way, else `status_code`."""
    body = {
        "id": outcome.memory.id,
        "status": outcome.status,
        "memory": memory_json(outcome.memory),
    } | extra
    if outcome.status == "accepted":
        body["detail"] = UPDATE_ACCEPTED_NOTE
    return JSONResponse(body, status_code=202 if outcome.status == "accepted" else status_code)


UPDATE_ACCEPTED_NOTE = (
    "durable on the bus but not applied yet: it will be, unless the memory is forgotten first"
)


class KvPutRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: Any = Field(description="any JSON value: at most 16 KiB as JSON, 16 levels deep")
    ttl_s: int | None = Field(
        None, description="seconds until the entry expires (1..31622400); none: never"
    )
    revision: int | None = Field(
        None, description="write only if the entry is at this revision (else 409)"
    )
    create_only: bool = Field(False, description="write only if the key does not exist (409)")


def entry_json(entry: KvEntry, *, with_value: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {
        "scope": entry.address.node.key,
        "key": entry.address.key,
        "revision": entry.revision,
        "updated_by": entry.updated_by,
        "updated_at": utc_iso(entry.updated_at),
        "expires_at": utc_iso(entry.expires_at) if entry.expires_at else None,
        "size": len(entry.value_json.encode("utf-8")),
    }
    return body | ({"value": entry.value} if with_value else {})
