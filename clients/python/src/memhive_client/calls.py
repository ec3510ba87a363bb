"""Each API call as data (method, path, query, body, how to read the answer), written once
for the sync and the async client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter

from memhive_client import models as m

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: dict[str, Any] = field(default_factory=dict)
    json: dict[str, Any] | None = None


def _model(model: type[T], key: str | None = None) -> Callable[[httpx.Response], T]:
    adapter = _adapter(model)

    def read(response: httpx.Response) -> T:
        data = response.json()
        return adapter.validate_python(data if key is None else data[key])

    return read


@cache
def _adapter(model: type[T]) -> TypeAdapter[T]:
    """Built once per type: a TypeAdapter costs 0.15 ms for a list of recalled memories, about
    a twentieth of a recall's client CPU, and every call makes its reader anew."""
    return TypeAdapter(model)


def _id(value: str) -> str:
    """One path segment: every '.' escaped too, since HTTP clients remove a '.' or '..'
    segment (RFC 3986 5.2.4): `get('.')` would read the list route."""
    return quote(value, safe="").replace(".", "%2E")


def _params(**values: Any) -> dict[str, Any]:
    return {
        k: v.isoformat() if isinstance(v, datetime) else v
        for k, v in values.items()
        if v is not None
    }


def save(request: m.SaveRequest, wait: m.Wait) -> Call[m.SaveResult]:
    return Call("POST", "/v1/memories", _model(m.SaveResult), {"wait": wait}, request.as_json())


def get(memory_id: str) -> Call[m.Memory]:
    return Call("GET", f"/v1/memories/{_id(memory_id)}", _model(m.Memory))


def list_page(
    *,
    kind: list[str] | None,
    scope: str | None,
    product_id: str | None,
    scope_path: str | None,
    tag: list[str] | None,
    limit: int,
    cursor: str | None,
    window: m.ListWindow | None = None,
) -> Call[m.MemoryPage]:
    params = _params(
        kind=kind,
        scope=scope,
        product_id=product_id,
        scope_path=scope_path,
        tag=tag,
        limit=limit,
        cursor=cursor,
        **(window or m.ListWindow()).params(),
    )
    return Call("GET", "/v1/memories", _model(m.MemoryPage), params)


def update(memory_id: str, request: m.UpdateRequest, wait: m.Wait) -> Call[m.UpdateResult]:
    path = f"/v1/memories/{_id(memory_id)}"
    return Call("PATCH", path, _model(m.UpdateResult), {"wait": wait}, request.as_json())


def flag(memory_id: str, request: m.FlagRequest, wait: m.Wait) -> Call[m.FlagResult]:
    path = f"/v1/memories/{_id(memory_id)}/flags"
    return Call("POST", path, _model(m.FlagResult), {"wait": wait}, request.as_json())


def flags(memory_id: str) -> Call[list[m.Flag]]:
    path = f"/v1/memories/{_id(memory_id)}/flags"
    return Call("GET", path, _model(list[m.Flag], "items"))


def clear_flags(memory_id: str, flag_ids: list[str] | None, wait: m.Wait) -> Call[m.UpdateResult]:
    """Every flag when `flag_ids` is None or empty."""
    path = f"/v1/memories/{_id(memory_id)}/flags"
    params = _params(flag_id=flag_ids or None, wait=wait)
    return Call("DELETE", path, _model(m.UpdateResult), params)


def confirm(memory_id: str, wait: m.Wait) -> Call[m.UpdateResult]:
    path = f"/v1/memories/{_id(memory_id)}/confirmations"
    return Call("POST", path, _model(m.UpdateResult), {"wait": wait})


def consolidate(request: m.ConsolidateRequest, wait: m.Wait) -> Call[m.ConsolidateResult]:
    path = "/v1/memories/consolidate"
    return Call("POST", path, _model(m.ConsolidateResult), {"wait": wait}, request.as_json())


def crystallize(memory_id: str, request: m.CrystallizeRequest, wait: m.Wait) -> Call[m.Skill]:
    path = f"/v1/memories/{_id(memory_id)}/crystallize"
    return Call("POST", path, _model(m.Skill), {"wait": wait}, request.as_json())


def skill_file(memory_id: str, also: list[str] | None, name: str | None) -> Call[str]:
    """The SKILL.md as text (the route answers it as a file download)."""
    path = f"/v1/memories/{_id(memory_id)}/skill"
    return Call("GET", path, lambda r: r.text, _params(also=also or None, name=name))


def skill_candidates(
    scope_path: str | None, limit: int, cursor: str | None
) -> Call[m.SkillCandidates]:
    params = _params(scope_path=scope_path, limit=limit, cursor=cursor)
    return Call("GET", "/v1/skills/candidates", _model(m.SkillCandidates), params)


def skills(scope_path: str | None, limit: int, cursor: str | None) -> Call[m.SkillPage]:
    params = _params(scope_path=scope_path, limit=limit, cursor=cursor)
    return Call("GET", "/v1/skills", _model(m.SkillPage), params)


def put_product(product_id: str, request: m.ProductRequest) -> Call[m.Product]:
    path = f"/v1/products/{_id(product_id)}"
    return Call("PUT", path, _model(m.Product), json=request.as_json())


def product(product_id: str) -> Call[m.Product]:
    return Call("GET", f"/v1/products/{_id(product_id)}", _model(m.Product))


def products() -> Call[list[m.Product]]:
    return Call("GET", "/v1/products", _model(list[m.Product], "items"))


def scopes() -> Call[m.Scopes]:
    return Call("GET", "/v1/scopes", _model(m.Scopes))


def create_token(request: m.CreateTokenRequest) -> Call[m.IssuedToken]:
    return Call("POST", "/v1/admin/tokens", _model(m.IssuedToken), json=request.as_json())


def tokens() -> Call[list[m.TokenInfo]]:
    return Call("GET", "/v1/admin/tokens", _model(list[m.TokenInfo], "items"))


def revoke_token(token_id: str) -> Call[m.TokenInfo]:
    return Call("DELETE", f"/v1/admin/tokens/{_id(token_id)}", _model(m.TokenInfo))


def rotate_token(token_id: str, request: m.RotateTokenRequest) -> Call[m.IssuedToken]:
    path = f"/v1/admin/tokens/{_id(token_id)}/rotate"
    return Call("POST", path, _model(m.IssuedToken), json=request.as_json())


def audit(
    *,
    action: str | None,
    principal: str | None,
    target: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    cursor: str | None,
) -> Call[m.AuditPage]:
    params = _params(
        action=action,
        principal=principal,
        target=target,
        since=since.isoformat() if since else None,
        until=until.isoformat() if until else None,
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/v1/admin/audit", _model(m.AuditPage), params)


def forget(memory_id: str, wait: m.Wait) -> Call[m.ForgetResult]:
    return Call("DELETE", f"/v1/memories/{_id(memory_id)}", _model(m.ForgetResult), {"wait": wait})


def recall(request: m.RecallRequest) -> Call[list[m.RecalledMemory]]:
    read = _model(list[m.RecalledMemory], "results")
    return Call("POST", "/v1/recall", read, json=request.as_json())


def link(request: m.EdgeRequest) -> Call[m.LinkResult]:
    return Call("POST", "/v1/edges", _model(m.LinkResult), json=request.as_json())


def edges(memory_id: str) -> Call[list[m.Edge]]:
    path = f"/v1/memories/{_id(memory_id)}/edges"
    return Call("GET", path, _model(list[m.Edge], "edges"))


def revisions(memory_id: str) -> Call[list[m.Revision]]:
    path = f"/v1/memories/{_id(memory_id)}/revisions"
    return Call("GET", path, _model(list[m.Revision], "revisions"))


def bulletin(scope: str, product_id: str | None) -> Call[m.Bulletin]:
    path = f"/v1/bulletins/{_id(scope)}"
    return Call("GET", path, _model(m.Bulletin), _params(product_id=product_id))


def context(request: m.ContextRequest) -> Call[m.ContextPack]:
    return Call("POST", "/v1/context", _model(m.ContextPack), json=request.as_json())


def claude_code_hook(
    request: m.ClaudeCodeHookInput,
    *,
    product_id: str | None = None,
    scope_path: str | None = None,
    budget: int | None = None,
    limit: int | None = None,
    min_confidence: float | None = None,
) -> Call[dict[str, Any]]:
    params = _params(product_id=product_id, scope_path=scope_path, budget=budget, limit=limit,
                     min_confidence=min_confidence)  # fmt: skip
    return Call("POST", "/v1/hooks/claude-code", lambda r: r.json(), params, request.as_json())


def dead_letters(consumer: str | None, limit: int) -> Call[list[m.DeadLetter]]:
    read = _model(list[m.DeadLetter], "items")
    return Call("GET", "/v1/admin/dead-letters", read, _params(consumer=consumer, limit=limit))


def health() -> Call[dict]:
    return Call("GET", "/healthz", lambda r: r.json())


def _kv_path(scope: str, key: str) -> str:
    """The node path keeps its '/' (the route's {scope:path}); the key is one segment."""
    return "/".join(["/v1/kv", *(_id(part) for part in scope.split("/")), _id(key)])


def get_state(scope: str, key: str) -> Call[m.KvEntry]:
    return Call("GET", _kv_path(scope, key), _model(m.KvEntry))


def set_state(scope: str, key: str, request: m.KvPutRequest) -> Call[m.KvEntry]:
    return Call("PUT", _kv_path(scope, key), _model(m.KvEntry), json=request.as_json())


def delete_state(scope: str, key: str, revision: int | None) -> Call[m.KvDeleted]:
    params = _params(revision=revision)
    return Call("DELETE", _kv_path(scope, key), _model(m.KvDeleted), params)


def list_state(
    scope: str, *, limit: int, cursor: str | None, include_values: bool
) -> Call[m.KvPage]:
    params = _params(scope=scope, limit=limit, cursor=cursor, include_values=include_values)
    return Call("GET", "/v1/kv", _model(m.KvPage), params)


def activity(
    *,
    scope: str | None,
    kind: list[str] | None,
    since: datetime | None,
    limit: int,
    cursor: str | None,
) -> Call[m.ActivityPage]:
    moment = since.isoformat() if since is not None else None
    params = _params(scope=scope, kind=kind, since=moment, limit=limit, cursor=cursor)
    return Call("GET", "/v1/activity", _model(m.ActivityPage), params)
