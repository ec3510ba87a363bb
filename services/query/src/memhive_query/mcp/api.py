"""The port the MCP tools call: memhive as seen by one authenticated caller.

Payloads and results are the REST JSON shapes (see `MemoryApi`), so its one adapter,
`RestMemoryApi`, is a thin mapping: the mounted MCP app points it at the gateway's own
routes in process (ASGI, no socket), the stdio bridge at a gateway's URL.
"""

from __future__ import annotations

from typing import Any, Protocol

Json = dict[str, Any]


class ApiError(Exception):
    """A request memhive refused or could not serve.

    status: an HTTP-like code (401 bad token, 403 not allowed, 404 unknown id,
    409 near-duplicate, 422 invalid input, 503 unreachable); message: text the agent
    can act on, shown to it verbatim.
    """

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class NearDuplicatesFound(ApiError):
    """A save refused because memories like it already exist (HTTP 409).

    similar: the near-duplicate memories (memory JSON). Not a failure for the agent:
    it retries with `supersedes=[ids]` or `force=true`, or keeps the existing memory.
    """

    def __init__(self, message: str, similar: list[Json]):
        super().__init__(409, message)
        self.similar = similar


class MemoryApi(Protocol):
    """memhive as seen by one caller (already authenticated).

    Every method takes and returns the REST JSON shapes; absent optional fields are
    simply left out of `fields`. Every method raises `ApiError` for a refusal
    (validation, auth, unknown id) or when memhive cannot be reached, never another
    exception type; `save` raises `NearDuplicatesFound` for a 409.
    Memory JSON: {id, kind, body, importance, pinned, tags, scope, product_id, visibility,
    source, source_ref, created_by, created_at, updated_at, expires_at, revision,
    access_count, last_accessed_at} with ISO-8601 times.
    """

    async def save(self, fields: Json) -> Json:
        """POST /v1/memories?wait=indexed: {kind, body, importance?, pinned?, tags?, scope?,
        product_id?, visibility?, source_ref?, expires_at?, force?, supersedes?}
        -> {"id", "status": "indexed"|"duplicate", "memory": memory}."""
        ...

    async def recall(self, fields: Json) -> Json:
        """POST /v1/recall: {query, kinds?, scope?, product_id?, tags?, max_results?,
        include_superseded?} -> {"results": [memory + "score", "replaces"?: [ids],
        "superseded_by"?: id]}, best first."""
        ...

    async def forget(self, memory_id: str) -> Json:
        """DELETE /v1/memories/{id}?wait=indexed -> {"id", "status": "forgotten"}."""
        ...

    async def get(self, memory_id: str) -> Json:
        """GET /v1/memories/{id} -> memory."""
        ...

    async def list(self, fields: Json) -> Json:
        """GET /v1/memories?kind&scope&product_id&tag&cursor&limit
        -> {"items": [memory], "next_cursor": str | None}."""
        ...

    async def link(self, fields: Json) -> Json:
        """POST /v1/edges: {src_id, dst_id, kind, weight?, rationale?}
        -> {"edge": edge, "status": "created"|"unchanged"}."""
        ...

    async def bulletin(self, fields: Json) -> Json:
        """GET /v1/bulletins/{scope}?product_id -> {"scope", "product_id", "text",
        "generated_at", "token_count", "renderer", "memory_ids"}."""
        ...

    async def context(self, fields: Json) -> Json:
        """POST /v1/context: {query?, scope?, product_id?, token_budget}
        -> {"text", "tokens_used", "items": [{id, class}]}."""
        ...

    async def update(self, memory_id: str, fields: Json) -> Json:
        """PATCH /v1/memories/{id}?wait=indexed: {body?, importance?, tags?, pinned?,
        visibility?, expires_at?, force?} -> {"id", "status", "memory"}."""
        ...

    async def flag(self, memory_id: str, fields: Json) -> Json:
        """POST /v1/memories/{id}/flags?wait=indexed: {kind, reason}
        -> {"id", "status", "memory", "flag_id"}."""
        ...

    async def confirm(self, memory_id: str) -> Json:
        """POST /v1/memories/{id}/confirmations?wait=indexed -> {"id", "status", "memory"}."""
        ...

    async def consolidate(self, fields: Json) -> Json:
        """POST /v1/memories/consolidate?wait=indexed: {ids, body?, summarize?, kind?,
        importance?, tags?} -> {"id", "status", "memory", "consolidated": [ids]}."""
        ...

    async def crystallize(self, memory_id: str, fields: Json) -> Json:
        """POST /v1/memories/{id}/crystallize?wait=indexed: {also?, name?, description?}
        -> {"name", "status", "filename", "skill_md", "download", "memories"}."""
        ...

    async def get_state(self, scope: str, key: str) -> Json:
        """GET /v1/kv/{scope}/{key} -> entry: {scope, key, value, revision, updated_by,
        updated_at, expires_at, size}."""
        ...

    async def set_state(self, scope: str, key: str, fields: Json) -> Json:
        """PUT /v1/kv/{scope}/{key}: {value, ttl_s?, revision?, create_only?} -> entry;
        409 when the revision or create_only does not hold."""
        ...

    async def delete_state(self, scope: str, key: str, fields: Json) -> Json:
        """DELETE /v1/kv/{scope}/{key}?revision -> {"scope", "key", "status": "deleted"}."""
        ...

    async def list_state(self, fields: Json) -> Json:
        """GET /v1/kv?scope&limit&cursor&include_values -> {"scope", "items": [entry
        (value only with include_values)], "next_cursor"}."""
        ...

    async def activity(self, fields: Json) -> Json:
        """GET /v1/activity?since&scope&kind&limit&cursor -> {"items": [{kind, time, actor,
        memories: [{id, kind, scope_path, revision, summary}], edges, query, reason}],
        "next_cursor"}, newest first."""
        ...

    async def scopes(self) -> Json:
        """GET /v1/scopes -> {"items": [{"scope_path": "global"}, {scope_path, product_id,
        name, recorded}, ...], "complete"}: the root and every product this caller may see."""
        ...

    async def skills(self, fields: Json) -> Json:
        """GET /v1/skills?scope_path&limit&cursor -> {"items": [{id, name, description,
        scope_path, promoted_at, download}], "next_cursor"}."""
        ...

    async def skill_file(self, memory_id: str) -> str:
        """GET /v1/memories/{id}/skill -> the SKILL.md, as text."""
        ...
