"""An in-memory MemoryApi honouring the REST shapes, with plain substring recall.

Enough of memhive's rules to exercise every tool and every error class: validation
(422), read-only tokens (403), unknown ids (404), near-duplicates (409) and an outage
(`unreachable = True` makes every call fail the way the REST adapter reports it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memhive_domain.kinds import DEFAULT_IMPORTANCE, MemoryKind
from memhive_query.mcp.api import ApiError, Json, NearDuplicatesFound

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class FakeMemoryApi:
    member: bool = True
    unreachable: bool = False
    memories: dict[str, Json] = field(default_factory=dict)
    edges: list[Json] = field(default_factory=list)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    state: dict[tuple[str, str], Json] = field(default_factory=dict)
    state_revision: int = 0
    activity_items: list[Json] = field(default_factory=list)
    product_ids: list[str] = field(default_factory=list)

    async def save(self, fields: Json) -> Json:
        self._enter("save", fields)
        self._require_member("save memories")
        problems = _save_problems(fields)
        if problems:
            raise ApiError(422, "; ".join(problems))
        existing = self._same_body(fields)
        if existing:
            return {"id": existing["id"], "status": "duplicate", "memory": existing}
        self._refuse_near_duplicates(fields)
        memory = self._store(fields)
        return {"id": memory["id"], "status": "indexed", "memory": memory}

    async def recall(self, fields: Json) -> Json:
        self._enter("recall", fields)
        if not fields.get("query", "").strip():
            raise ApiError(422, "query: must not be empty")
        scored = [(self._score(m, fields["query"]), m) for m in self._visible(fields)]
        ranked = sorted((p for p in scored if p[0] > 0), key=lambda p: -p[0])
        limit = fields.get("max_results", 6)
        return {"results": [{**m, "score": s} for s, m in ranked[:limit]]}

    async def forget(self, memory_id: str) -> Json:
        self._enter("forget", memory_id)
        self._require_member("forget memories")
        self._find(memory_id)["forgotten"] = True
        return {"id": memory_id, "status": "forgotten"}

    async def get(self, memory_id: str) -> Json:
        self._enter("get", memory_id)
        return _public(self._find(memory_id))

    async def list(self, fields: Json) -> Json:
        self._enter("list", fields)
        matching = [m for m in self._visible(fields) if _has_tag(m, fields.get("tag"))]
        start = int(fields.get("cursor") or 0)
        end = start + fields.get("limit", 20)
        next_cursor = str(end) if end < len(matching) else None
        return {"items": matching[start:end], "next_cursor": next_cursor}

    async def link(self, fields: Json) -> Json:
        self._enter("link", fields)
        self._require_member("link memories")
        self._find(fields["src_id"]), self._find(fields["dst_id"])
        edge = {k: fields[k] for k in ("src_id", "dst_id", "kind")}
        status = "unchanged" if edge in self.edges else "created"
        if status == "created":
            self.edges.append(edge)
        return {"edge": {**edge, "rationale": fields.get("rationale")}, "status": status}

    async def bulletin(self, fields: Json) -> Json:
        self._enter("bulletin", fields)
        shown = self._visible(fields)
        text = "\n".join(f"- [{m['id']}] {m['kind']}: {m['body']}" for m in shown) or "(empty)"
        return {
            "scope": fields.get("scope") or fields.get("scope_path"),
            "product_id": fields.get("product_id"),
            "text": text,
            "generated_at": EPOCH.isoformat(),
            "token_count": len(text.split()),
            "renderer": "fake",
            "memory_ids": [m["id"] for m in shown],
        }

    async def context(self, fields: Json) -> Json:
        self._enter("context", fields)
        lines, used = [], 0
        for memory in self._visible(fields):
            cost = len(memory["body"].split())
            if used + cost > fields["token_budget"]:
                break
            lines.append(memory)
            used += cost
        text = "\n".join(m["body"] for m in lines)
        items = [{"id": m["id"], "class": "relevant"} for m in lines]
        return {"text": text, "tokens_used": used, "items": items}

    async def update(self, memory_id: str, fields: Json) -> Json:
        self._enter("update", (memory_id, fields))
        self._require_member("change memories")
        memory = self._find(memory_id)
        changed = {k: v for k, v in fields.items() if k != "force" and memory.get(k) != v}
        if not changed:
            return {"id": memory_id, "status": "unchanged", "memory": _public(memory)}
        memory.update(changed, revision=memory["revision"] + 1)
        return {"id": memory_id, "status": "updated", "memory": _public(memory)}

    async def flag(self, memory_id: str, fields: Json) -> Json:
        self._enter("flag", (memory_id, fields))
        self._require_member("flag memories")
        memory = self._find(memory_id)
        flag_id = f"flag_{len(memory['flags']) + 1}"
        memory["flags"].append({"id": flag_id, **fields})
        memory["trust"] = round(memory["trust"] - 0.4, 2)
        return {"id": memory_id, "status": "updated", "memory": _public(memory), "flag_id": flag_id}

    async def confirm(self, memory_id: str) -> Json:
        self._enter("confirm", memory_id)
        self._require_member("confirm memories")
        memory = self._find(memory_id)
        memory["confirmations"] += 1
        memory["trust"] = round(memory["trust"] + 0.1, 2)
        return {"id": memory_id, "status": "updated", "memory": _public(memory)}

    async def consolidate(self, fields: Json) -> Json:
        self._enter("consolidate", fields)
        self._require_member("consolidate memories")
        sources = [self._find(i) for i in fields["ids"]]
        memory = self._store({"kind": sources[0]["kind"], "body": fields["body"]})
        for source in sources:
            source["forgotten"] = True  # stands in for being superseded
        return {
            "id": memory["id"],
            "status": "indexed",
            "memory": memory,
            "consolidated": fields["ids"],
        }

    async def crystallize(self, memory_id: str, fields: Json) -> Json:
        self._enter("crystallize", (memory_id, fields))
        memory = self._find(memory_id)
        if memory["kind"] != "procedure":
            raise ApiError(422, "ids: only procedures become skills")
        name = fields.get("name", "a-skill")
        memory["skill"] = name  # promoted
        skill_md = f"---\nname: {name}\n---\n\n1. {memory['body']}\n"
        return {
            "name": name,
            "status": "crystallized",
            "filename": f"{name}/SKILL.md",
            "skill_md": skill_md,
            "download": f"/v1/memories/{memory_id}/skill",
            "memories": [_public(memory)],
        }

    async def get_state(self, scope: str, key: str) -> Json:
        self._enter("get_state", (scope, key))
        self._require_member("read state")
        if (scope, key) not in self.state:
            raise ApiError(404, f"no key with id {scope + '/' + key!r} in this workspace")
        return self.state[(scope, key)]

    async def set_state(self, scope: str, key: str, fields: Json) -> Json:
        self._enter("set_state", (scope, key, fields))
        self._require_member("write state")
        self._check_state_revision(scope, key, fields)
        self.state_revision += 1
        expires_at = "2026-01-01T00:01:00Z" if fields.get("ttl_s") else None
        entry = {"scope": scope, "key": key, "value": fields["value"], "expires_at": expires_at}
        entry |= {"revision": self.state_revision, "updated_by": "agent-1", "size": 1}
        self.state[(scope, key)] = entry | {"updated_at": EPOCH.isoformat()}
        return self.state[(scope, key)]

    async def delete_state(self, scope: str, key: str, fields: Json) -> Json:
        self._enter("delete_state", (scope, key, fields))
        current = await self.get_state(scope, key)
        self._check_state_revision(scope, key, fields)
        del self.state[(scope, current["key"])]
        return {"scope": scope, "key": key, "status": "deleted"}

    async def list_state(self, fields: Json) -> Json:
        self._enter("list_state", fields)
        self._require_member("read state")
        items = [e for (scope, _), e in self.state.items() if scope == fields["scope"]]
        if not fields.get("include_values"):
            items = [{k: v for k, v in e.items() if k != "value"} for e in items]
        limit = fields.get("limit", 20)
        more = "v1.more" if len(items) > limit else None
        return {"scope": fields["scope"], "items": items[:limit], "next_cursor": more}

    async def scopes(self) -> Json:
        self._enter("scopes", None)
        products = [
            {"scope_path": f"product:{p}", "product_id": p, "name": None, "recorded": True}
            for p in self.product_ids
        ]
        return {"items": [{"scope_path": "global"}, *products], "complete": True}

    async def skills(self, fields: Json) -> Json:
        self._enter("skills", fields)
        promoted = [m for m in self.memories.values() if self._can_see(m) and m.get("skill")]
        items = [
            {"id": m["id"], "name": m["skill"], "description": m["body"], "scope_path": "global"}
            for m in promoted
            if not m.get("forgotten")
        ]
        return {"items": items, "next_cursor": None}

    async def skill_file(self, memory_id: str) -> str:
        self._enter("skill_file", memory_id)
        memory = self._find(memory_id)
        if memory["kind"] != "procedure":
            raise ApiError(422, "ids: only procedures become skills")
        return f"---\nname: {memory.get('skill', 'a-skill')}\n---\n\n1. {memory['body']}\n"

    async def activity(self, fields: Json) -> Json:
        self._enter("activity", fields)
        limit = fields.get("limit", 20)
        more = "a1.more" if len(self.activity_items) > limit else None
        return {"items": self.activity_items[:limit], "next_cursor": more}

    def _check_state_revision(self, scope: str, key: str, fields: Json) -> None:
        current = self.state.get((scope, key), {}).get("revision")
        if fields.get("create_only") and current is not None:
            raise ApiError(409, f"key {key!r} at {scope!r} is at revision {current}")
        if fields.get("revision") is not None and fields["revision"] != current:
            raise ApiError(409, f"key {key!r} at {scope!r} is at revision {current}")

    def _enter(self, name: str, payload: Any) -> None:
        self.calls.append((name, payload))
        if self.unreachable:
            raise ApiError(503, "memhive is unreachable at http://fake (connection refused).")

    def _require_member(self, action: str) -> None:
        if not self.member:
            raise ApiError(403, f"This token may not {action}: only workspace members can.")

    def _find(self, memory_id: str) -> Json:
        memory = self.memories.get(memory_id)
        if memory is None or memory.get("forgotten") or not self._can_see(memory):
            raise ApiError(
                404, f"No memory with id {memory_id!r}: it never existed or was forgotten."
            )
        return memory

    def _can_see(self, memory: Json) -> bool:
        return self.member or memory["visibility"] == "public"

    def _visible(self, fields: Json) -> list[Json]:
        return [_public(m) for m in self.memories.values() if self._matches(m, fields)]

    def _matches(self, memory: Json, fields: Json) -> bool:
        kinds = fields.get("kinds") or ([fields["kind"]] if fields.get("kind") else None)
        return (
            not memory.get("forgotten")
            and self._can_see(memory)
            and (kinds is None or memory["kind"] in kinds)
            and (not fields.get("product_id") or memory["product_id"] == fields["product_id"])
            and (not fields.get("scope") or memory["scope"] == fields["scope"])
        )

    def _score(self, memory: Json, query: str) -> float:
        words = [w for w in query.lower().split() if len(w) > 2]
        body = memory["body"].lower()
        return round(sum(w in body for w in words) / max(len(words), 1), 3)

    def _same_body(self, fields: Json) -> Json | None:
        return next((m for m in self._live_in_scope(fields) if m["body"] == fields["body"]), None)

    def _refuse_near_duplicates(self, fields: Json) -> None:
        if fields.get("force") or fields.get("supersedes"):
            return
        body = fields["body"].lower()
        similar = [m for m in self._live_in_scope(fields) if _near(m["body"].lower(), body)]
        if similar:
            raise NearDuplicatesFound("near-duplicate of existing memories", similar)

    def _live_in_scope(self, fields: Json) -> list[Json]:
        product = fields.get("product_id")
        return [
            m
            for m in self.memories.values()
            if not m.get("forgotten") and m["product_id"] == product
        ]

    def _store(self, fields: Json) -> Json:
        number = len(self.memories) + 1
        now = (EPOCH + timedelta(minutes=number)).isoformat()
        memory = {
            "id": f"mem_{number:04d}",
            "kind": fields["kind"],
            "body": fields["body"],
            "importance": fields.get("importance", DEFAULT_IMPORTANCE[MemoryKind(fields["kind"])]),
            "pinned": fields.get("pinned", False),
            "tags": fields.get("tags", []),
            "scope": "product" if fields.get("product_id") else "global",
            "product_id": fields.get("product_id"),
            "visibility": fields.get("visibility", "private"),
            "source": "agent",
            "source_ref": fields.get("source_ref"),
            "created_by": "agent-1",
            "created_at": now,
            "updated_at": now,
            "expires_at": fields.get("expires_at"),
            "revision": 1,
            "access_count": 0,
            "last_accessed_at": None,
            "trust": 0.6,
            "flags": [],
            "confirmations": 0,
        }
        self.memories[memory["id"]] = memory
        return _public(memory)


def _save_problems(fields: Json) -> list[str]:
    problems = []
    if fields.get("kind") not in {k.value for k in MemoryKind}:
        problems.append(f"kind: must be one of {', '.join(k.value for k in MemoryKind)}")
    if fields.get("scope") == "product" and not fields.get("product_id"):
        problems.append("product_id: is required when scope is 'product'")
    return problems


def _near(existing: str, new: str) -> bool:
    return existing != new and (existing in new or new in existing)


def _has_tag(memory: Json, tag: str | None) -> bool:
    return tag is None or tag in memory["tags"]


def _public(memory: Json) -> Json:
    return {key: value for key, value in memory.items() if key != "forgotten"}
