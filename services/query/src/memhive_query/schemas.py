"""The REST shapes: request bodies and memory JSON.

Request fields carry the domain's own rules (request_types.py), so the OpenAPI document
states what the server enforces; the domain checks them again, with the rules a schema
cannot state (a future expiry, one field against another).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

from fastapi.responses import JSONResponse
from memhive_domain.changes import MemoryChanges
from memhive_domain.consolidation import MAX_SOURCES, MIN_SOURCES, ConsolidationRequest
from memhive_domain.curation import MAX_FLAG_REASON_CHARS, Flag
from memhive_domain.edges import MAX_RATIONALE_CHARS, Edge, EdgeDraft
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.exchange.records import edge_record, flag_record
from memhive_domain.kinds import MemoryKind
from memhive_domain.kv import MAX_REVISION, MAX_TTL_S, KvEntry
from memhive_domain.memory import (
    MAX_BODY_CHARS,
    MAX_SOURCE_REF_CHARS,
    MAX_TAGS,
    Memory,
    MemoryDraft,
)
from memhive_domain.ranking import RankedMemory
from memhive_domain.recall import DEFAULT_MAX_RESULTS, MAX_QUERY_CHARS, MAX_RESULTS
from memhive_domain.skills import MAX_DESCRIPTION_CHARS
from memhive_domain.trust import score
from pydantic import BaseModel, ConfigDict, Field

from memhive_query.request_types import (
    EdgeKindName,
    FlagKindName,
    Importance,
    JsonBoolean,
    KindName,
    Moment,
    OptionalProductId,
    OptionalScopePath,
    ScopeName,
    SkillName,
    SourceName,
    Tag,
    VisibilityName,
    json_integer,
    optional_text,
    visible_text,
)
from memhive_query.timestamps import utc_iso
from memhive_query.use_cases.conflicts import MAX_SUPERSEDES
from memhive_query.use_cases.skills import MAX_EXTRA_PROCEDURES, SkillRequest
from memhive_query.use_cases.update import UpdateOutcome

Body = visible_text(MAX_BODY_CHARS, "what to remember")
NewBody = visible_text(
    MAX_BODY_CHARS, "the new text: re-embedded, checked for near-duplicates like a save"
)
MergedBody = visible_text(
    MAX_BODY_CHARS, "the merged memory; omitted with summarize: written by the configured LLM"
)
SkillDescription = visible_text(MAX_DESCRIPTION_CHARS, "when to use the skill; omitted: the body")
FlagReason = visible_text(MAX_FLAG_REASON_CHARS, "why")
RecallQuery = visible_text(MAX_QUERY_CHARS, "what to recall")
SourceRef = optional_text(MAX_SOURCE_REF_CHARS, "where it came from, e.g. a URL or an issue")
Rationale = optional_text(MAX_RATIONALE_CHARS, "why, in a sentence")


def _at_least_one_change(schema: dict[str, Any]) -> None:
    """A PATCH names something to change (force alone changes nothing)."""
    changes = [name for name in schema["properties"] if name != "force"]
    nullable = ("expires_at", "occurred_at")  # null clears them: a change
    schema["anyOf"] = [
        {"required": [name]}
        if name in nullable
        else {"required": [name], "properties": {name: {"not": {"type": "null"}}}}
        for name in changes
    ]


def _body_unless_summarized(schema: dict[str, Any]) -> None:
    schema["anyOf"] = [
        {"required": ["body"], "properties": {"body": {"type": "string"}}},
        {"required": ["summarize"], "properties": {"summarize": {"const": True}}},
    ]


class NodeFields(BaseModel):
    """Where a request points in the scope tree: scope_path, or scope with product_id
    (`product` needs one, `global` takes none; given with scope_path, they must agree)."""

    scope: ScopeName | None = Field(
        None,
        description="global or product; product_id alone implies product; nothing at all: "
        "the token's home node (a recall or listing: everything it reads)",
    )
    product_id: OptionalProductId | None = None
    scope_path: OptionalScopePath | None = Field(
        None, description="scope/product_id, if also given, must agree"
    )


class SaveRequest(NodeFields):
    model_config = ConfigDict(extra="forbid")

    kind: KindName = Field(description="what sort of memory this is")
    body: Body
    importance: Importance | None = Field(None, description="0..1; omitted: the kind's default")
    pinned: JsonBoolean = False
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    visibility: VisibilityName | None = Field(
        None,
        description="private (members only) or public; omitted: global is public, a product "
        "and its teams take the product's visibility, anything else is private",
    )
    source: SourceName = "agent"
    source_ref: SourceRef | None = None
    expires_at: Moment | None = Field(None, description="a future time; omitted: never")
    occurred_at: Moment | None = Field(
        None,
        description="when the remembered thing happened (ISO 8601), if not now; the same "
        "words at another time are another memory",
    )
    force: JsonBoolean = Field(False, description="save even when near-duplicates exist")
    supersedes: list[UUID] = Field(
        default_factory=list, description="ids this memory updates", max_length=MAX_SUPERSEDES
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
    """Only the fields given change (at least one); `expires_at: null` removes the expiry,
    `occurred_at: null` makes it "when it was saved" again."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_at_least_one_change)

    body: NewBody | None = None
    importance: Importance | None = Field(None, description="0..1")
    tags: list[Tag] | None = Field(None, description="replaces the tags", max_length=MAX_TAGS)
    pinned: JsonBoolean | None = Field(
        None, description="pinned memories lead their scope's bulletin"
    )
    visibility: VisibilityName | None = Field(None, description="private or public")
    expires_at: Moment | None = Field(None, description="a future time; null: never expires")
    occurred_at: Moment | None = Field(
        None, description="when it happened; null: when it was saved"
    )
    force: JsonBoolean = Field(False, description="change the body even when near-duplicates exist")

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
    model_config = ConfigDict(extra="forbid", json_schema_extra=_body_unless_summarized)

    ids: list[UUID] = Field(
        description="the memories to merge (at least two different ones), at one scope node",
        min_length=MIN_SOURCES,
        max_length=MAX_SOURCES,
    )
    body: MergedBody | None = None
    summarize: JsonBoolean = Field(False, description="let the configured LLM write the body")
    kind: KindName | None = Field(None, description="omitted: the sources' common kind")
    importance: Importance | None = Field(None, description="0..1; omitted: the highest source's")
    tags: list[Tag] | None = Field(
        None, description="omitted: the sources' tags", max_length=MAX_TAGS
    )

    def consolidation(self) -> ConsolidationRequest:
        if self.body is None and not self.summarize:
            raise InvalidInput([FieldProblem("body", "required unless summarize is true")])
        return ConsolidationRequest(
            ids=[str(i) for i in self.ids],
            body=self.body,
            kind=self.kind,
            importance=self.importance,
            tags=None if self.tags is None else tuple(self.tags),
        )


class CrystallizeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    also: list[UUID] = Field(
        default_factory=list,
        description="more procedures for the same skill",
        max_length=MAX_EXTRA_PROCEDURES,
    )
    name: SkillName | None = Field(
        None, description="the skill's name (lowercase words joined by '-'); omitted: from the body"
    )
    description: SkillDescription | None = None

    def skill(self, memory_id: str) -> SkillRequest:
        also = tuple(str(i) for i in self.also)
        return SkillRequest(memory_id, also, self.name, self.description)


class FlagRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: FlagKindName = Field(description="wrong, outdated or unverified")
    reason: FlagReason


class TimeWindow(BaseModel):
    """When memories were saved and when what they say happened: [after, before)."""

    created_after: Moment | None = Field(None, description="saved at or after (ISO 8601)")
    created_before: Moment | None = Field(None, description="saved before")
    occurred_after: Moment | None = Field(
        None, description="happened at or after (occurred_at, else when saved)"
    )
    occurred_before: Moment | None = Field(None, description="happened before")

    def window(self) -> dict[str, datetime | None]:
        """The four bounds, as SelectionRequest names them."""
        return {name: getattr(self, name) for name in TimeWindow.model_fields}


class RecallRequest(TimeWindow, NodeFields):
    model_config = ConfigDict(extra="forbid")

    query: RecallQuery
    kinds: list[KindName] | None = Field(None, max_length=len(MemoryKind))
    tags: list[Tag] | None = Field(None, description="any of these", max_length=MAX_TAGS)
    max_results: json_integer(1, MAX_RESULTS) | None = Field(
        None, description=f"default {DEFAULT_MAX_RESULTS}"
    )
    include_superseded: JsonBoolean = False
    min_confidence: Importance | None = Field(
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

    src_id: UUID = Field(description="the memory the edge starts from, e.g. the newer fact")
    dst_id: UUID = Field(description="the memory it points to, e.g. the older fact; not src_id")
    kind: EdgeKindName = Field(description="updates, contradicts or related_to")
    weight: Importance | None = Field(None, description="0..1; omitted: 1 (you are sure)")
    rationale: Rationale = ""

    def draft(self) -> EdgeDraft:
        ends = str(self.src_id), str(self.dst_id)
        return EdgeDraft(*ends, self.kind, self.weight, self.rationale)


def edge_json(edge: Edge) -> dict[str, Any]:
    return edge_record(edge)  # the API's edge is the export's: one shape, one place


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
    return flag_record(flag)  # the API's flag is the export's, as edges are


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
    ttl_s: json_integer(1, MAX_TTL_S) | None = Field(
        None, description="seconds until the entry expires; none: never"
    )
    revision: json_integer(1, MAX_REVISION) | None = Field(
        None,
        description="write only if the entry is at this revision (else 409); not with create_only",
    )
    create_only: JsonBoolean = Field(
        False, description="write only if the key does not exist (409)"
    )


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
