"""The API's JSON shapes as pydantic models. Request models mirror the gateway's request
bodies (a test checks them against the OpenAPI document); answers accept unknown fields,
so a newer server does not break an older client."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
)

Wait = Literal["accepted", "persisted", "indexed"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


def _whole(value: object) -> object:
    """30.0 is 30, as JSON Schema and the gateway read it (True stays refused)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


WholeNumber = Annotated[StrictInt, BeforeValidator(_whole)]


class _Request(BaseModel):
    """Booleans, integers and numbers are taken as such (Strict*): `ttl_s=True` is refused
    here as the gateway refuses `"ttl_s": true`, not sent as a TTL of one second."""

    model_config = ConfigDict(extra="forbid")

    def as_json(self) -> dict:
        return self.model_dump(mode="json", exclude_defaults=True)


# --- requests -------------------------------------------------------------------------


class SaveRequest(_Request):
    kind: str
    body: str
    importance: StrictFloat | None = None
    pinned: StrictBool = False
    tags: list[str] = Field(default_factory=list)
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None  # a node of the scope tree, e.g. product:ios/team:mobile
    visibility: str | None = None  # omitted: the node's default (global is public)
    source: str = "agent"
    source_ref: str | None = None
    expires_at: datetime | None = None
    occurred_at: datetime | None = None  # when it happened, if not now
    force: StrictBool = False
    supersedes: list[str] = Field(default_factory=list)


class _TimeWindow(_Request):
    """Half-open windows: after <= t < before. occurred: occurred_at, else when saved."""

    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None


class ListWindow(_TimeWindow):
    """The listing's time bounds, and expired memories too (members, for audits)."""

    include_expired: StrictBool | None = None

    def params(self) -> dict:
        return self.model_dump(exclude_none=True)


class RecallRequest(_TimeWindow):
    query: str
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None
    kinds: list[str] | None = None
    tags: list[str] | None = None
    max_results: WholeNumber | None = None
    include_superseded: StrictBool = False
    min_confidence: StrictFloat | None = None  # 0..1: leave out results less likely to answer
    lanes: list[Literal["vector", "lexical"]] | None = None


class EdgeRequest(_Request):
    src_id: str
    dst_id: str
    kind: str
    weight: StrictFloat | None = None
    rationale: str = ""


class ContextRequest(_TimeWindow):
    query: str | None = None
    scope: str | None = None
    product_id: str | None = None
    scope_path: str | None = None
    token_budget: WholeNumber


class ClaudeCodeHookInput(_Request):
    """A Claude Code hook's input, as Claude Code writes it on the hook's stdin; its other
    fields (`cwd`, `transcript_path`, ...) are left out, the gateway reads none of them."""

    model_config = ConfigDict(extra="ignore")

    hook_event_name: str
    session_id: str = ""
    source: str = ""
    prompt: str = ""


class KvPutRequest(_Request):
    value: Any
    ttl_s: WholeNumber | None = None
    revision: WholeNumber | None = None  # only if the entry is still at this revision
    create_only: StrictBool = False  # only if the key does not exist yet


class UpdateRequest(_Request):
    """Only the fields given change; `expires_at=None` given explicitly removes the expiry,
    `occurred_at=None` makes it "when saved" again."""

    body: str | None = None
    importance: StrictFloat | None = None
    tags: list[str] | None = None
    pinned: StrictBool | None = None
    visibility: str | None = None
    expires_at: datetime | None = None
    occurred_at: datetime | None = None
    force: StrictBool = False

    def as_json(self) -> dict:
        return self.model_dump(mode="json", exclude_unset=True)


class FlagRequest(_Request):
    kind: str  # wrong, outdated or unverified
    reason: str


class ConsolidateRequest(_Request):
    ids: list[str]
    body: str | None = None  # required unless summarize
    summarize: StrictBool = False
    kind: str | None = None
    importance: StrictFloat | None = None
    tags: list[str] | None = None


class CrystallizeRequest(_Request):
    also: list[str] = Field(default_factory=list)
    name: str | None = None
    description: str | None = None


class ProductRequest(_Request):
    visibility: str
    name: str | None = None


class CreateTokenRequest(_Request):
    user: str
    role: Literal["admin", "member", "agent", "viewer"] = "member"
    name: str = ""
    home: str = "global"
    acting_for: str | None = None
    expires_in: str | None = None  # e.g. 30d, 12h
    expires_at: datetime | None = None


class RotateTokenRequest(_Request):
    grace: str | None = None  # how long the old secret keeps working, e.g. 1h


# --- answers --------------------------------------------------------------------------


class Flag(_Answer):
    id: str
    kind: str
    reason: str
    flagged_by: str
    flagged_at: datetime


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
    trust: float  # 0.05..1: author, confirmations, corrections, flags
    staleness: float  # 0 fresh .. 1 stale, as of the answer
    flags: list[Flag] = Field(default_factory=list)
    confirmations: int = 0
    corrections: int = 0
    promoted_at: datetime | None = None  # crystallized into a skill


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


class UpdateResult(_Answer):
    id: str
    status: Literal["updated", "unchanged", "accepted"]
    memory: Memory


class FlagResult(UpdateResult):
    flag_id: str | None  # for clear_flags


class ConsolidateResult(_Answer):
    id: str
    status: str
    memory: Memory
    consolidated: list[str]


class Skill(_Answer):
    name: str
    status: Literal["crystallized", "accepted"]
    filename: str
    skill_md: str
    download: str
    memories: list[Memory]


class SkillCandidates(_Answer):
    items: list[Memory]
    next_cursor: str | None
    threshold: int


class SkillInfo(_Answer):
    """A skill the token may read (a crystallized procedure); `download` is its SKILL.md."""

    id: str
    name: str
    description: str
    scope_path: str
    promoted_at: datetime | None
    download: str


class SkillPage(_Answer):
    items: list[SkillInfo]
    next_cursor: str | None


class Product(_Answer):
    product_id: str
    name: str | None
    visibility: str
    updated_by: str
    updated_at: datetime


class ScopeInfo(_Answer):
    scope_path: str  # "global" or "product:<id>"
    product_id: str | None = None
    name: str | None = None
    recorded: bool | None = None  # a product: it has a PUT /v1/products record


class Scopes(_Answer):
    items: list[ScopeInfo]
    complete: bool  # False: more products may exist than were found from memories


class TokenInfo(_Answer):
    """A token's metadata (never its secret); `status` is "revoked" after revoke_token."""

    id: str
    name: str
    workspace_id: str
    user: str
    role: str
    home: str
    acting_for: str | None
    created_at: datetime | None
    created_by: str | None
    expires_at: datetime | None
    rotated_at: datetime | None
    status: str | None = None


class IssuedToken(TokenInfo):
    token: str  # the secret: in this answer only


class AuditEntry(_Answer):
    id: str
    time: datetime
    action: str
    user: str
    role: str
    credential: str
    acting_for: str | None
    target: str
    outcome: str
    detail: str


class AuditPage(_Answer):
    items: list[AuditEntry]
    next_cursor: str | None


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


class KvEntry(_Answer):
    """A key/value entry; `value` is absent from listings made without include_values."""

    scope: str
    key: str
    revision: int
    updated_by: str
    updated_at: datetime
    expires_at: datetime | None
    size: int
    value: Any = None


class KvPage(_Answer):
    scope: str
    items: list[KvEntry]
    next_cursor: str | None


class KvDeleted(_Answer):
    scope: str
    key: str
    status: Literal["deleted"]


class ActivityMemory(_Answer):
    id: str
    kind: str
    scope_path: str
    revision: int
    summary: str | None  # None once the memory is gone (forgotten, expired)


class ActivityEdge(_Answer):
    src_id: str
    dst_id: str
    kind: str


class ActivityEntry(_Answer):
    kind: Literal["saved", "updated", "forgotten", "linked", "recalled"]
    time: datetime
    actor: str
    memories: list[ActivityMemory]
    edges: list[ActivityEdge]
    query: str | None  # a recall's query, shown to its author only
    reason: str | None


class ActivityPage(_Answer):
    items: list[ActivityEntry]
    next_cursor: str | None
