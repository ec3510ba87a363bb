"""The API's JSON shapes as pydantic models. Request models mirror the gateway's request
bodies (a test checks them against the OpenAPI document); answers accept unknown fields,
so a newer server does not break an older client."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Wait = Literal["accepted", "persisted", "indexed"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def as_json(self) -> dict:
        return self.model_dump(mode="json", exclude_defaults=True)


# --- requests -------------------------------------------------------------------------


class SaveRequest(_Request):
    kind: str
    body: str
    importance: float | None = None
    pinned: bool = False
    tags: list[str] = Field(default_factory=list)
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None  # a node of the scope tree, e.g. product:ios/team:mobile
    visibility: str | None = None  # omitted: the node's default (global is public)
    source: str = "agent"
    source_ref: str | None = None
    expires_at: datetime | None = None
    occurred_at: datetime | None = None  # when it happened, if not now
    force: bool = False
    supersedes: list[str] = Field(default_factory=list)


class _TimeWindow(_Request):
    """Half-open windows: after <= t < before. occurred: occurred_at, else when saved."""

    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None


class RecallRequest(_TimeWindow):
    query: str
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None
    kinds: list[str] | None = None
    tags: list[str] | None = None
    max_results: int | None = None
    include_superseded: bool = False
    min_confidence: float | None = None  # 0..1: leave out results less likely to answer
    lanes: list[Literal["vector", "lexical"]] | None = None


class EdgeRequest(_Request):
    src_id: str
    dst_id: str
    kind: str
    weight: float | None = None
    rationale: str = ""


class ContextRequest(_TimeWindow):
    query: str | None = None
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None
    token_budget: int


# --- answers --------------------------------------------------------------------------


class Memory(_Answer):
    id: str
    kind: str
    body: str
    importance: float
    pinned: bool
    tags: list[str]
    scope: str
    product_id: str | None
    scope_path: str = "global"
    team_id: str | None = None
    agent_id: str | None = None
    visibility: str
    source: str
    source_ref: str | None
    created_by: str
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    occurred_at: datetime | None = None
    revision: int
    access_count: int
    last_accessed_at: datetime | None


class RecalledMemory(Memory):
    score: float
    lane_ranks: dict[str, int]
    confidence: float = 0.0  # how likely it answers the query, calibrated on LoCoMo
    replaces: list[str] = Field(default_factory=list)
    superseded_by: str | None = None


class SimilarMemory(Memory):
    similarity: float


class SaveResult(_Answer):
    id: str
    status: Literal["accepted", "persisted", "indexed", "duplicate"]
    memory: Memory


class ForgetResult(_Answer):
    id: str
    status: Literal["accepted", "forgotten"]


class MemoryPage(_Answer):
    items: list[Memory]
    next_cursor: str | None


class Edge(_Answer):
    src_id: str
    dst_id: str
    kind: str
    weight: float
    created_by: str
    creator_kind: str
    rationale: str
    created_at: datetime


class LinkResult(_Answer):
    edge: Edge
    status: str


class Revision(_Answer):
    revision: int
    updated_at: datetime
    kind: str
    body: str
    tags: list[str]
    scope: str
    product_id: str | None
    forgotten: bool
    change: str
    event_id: str
    command_id: str


class BulletinSource(_Answer):
    id: str
    revision: int


class Bulletin(_Answer):
    scope: str
    product_id: str | None
    text: str
    generated_at: datetime
    token_count: int
    renderer: str
    fingerprint: str
    memory_ids: list[str]
    sources: list[BulletinSource]
    pinned_over_budget: bool


class ContextItem(_Answer):
    id: str
    class_: str = Field(alias="class")


class ContextPack(_Answer):
    text: str
    tokens_used: int
    token_budget: int
    bulletin_truncated: bool
    items: list[ContextItem]


class DeadLetter(_Answer):
    sequence: int
    consumer: str
    subject: str
    reason: str
    deliveries: int
    time: datetime | None
    headers: dict[str, str]
    payload_base64: str
