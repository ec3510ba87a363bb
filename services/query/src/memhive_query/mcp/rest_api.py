"""MemoryApi over memhive's REST API (httpx): what the stdio bridge and remote tools use."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from memhive_query.mcp.api import ApiError, Json, NearDuplicatesFound

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)


class RestMemoryApi:
    """The MemoryApi port over HTTP, authenticated with one bearer token.

    Non-2xx answers become `ApiError(status, detail)` (409 on save: `NearDuplicatesFound`);
    a gateway that cannot be reached becomes `ApiError(503, ...)` naming the URL.
    A client passed in stays the caller's to close; one built here closes with `aclose()`.
    """

    def __init__(self, base_url: str, token: str, client: httpx.AsyncClient | None = None):
        self._base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> RestMemoryApi:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def save(self, fields: Json) -> Json:
        response = await self._send("POST", "/v1/memories", params={"wait": "indexed"}, json=fields)
        if response.status_code == 409:
            body = _json_or_empty(response)
            raise NearDuplicatesFound(_detail(response), list(body.get("similar", [])))
        return _result(response)

    async def recall(self, fields: Json) -> Json:
        return await self._call("POST", "/v1/recall", json=fields)

    async def forget(self, memory_id: str) -> Json:
        path = _memory_path(memory_id)
        return await self._call("DELETE", path, params={"wait": "indexed"})

    async def get(self, memory_id: str) -> Json:
        return await self._call("GET", _memory_path(memory_id))

    async def list(self, fields: Json) -> Json:
        return await self._call("GET", "/v1/memories", params=fields)

    async def link(self, fields: Json) -> Json:
        return await self._call("POST", "/v1/edges", json=fields)

    async def bulletin(self, fields: Json) -> Json:
        """The route's {scope} segment is scope, else the node path (which may hold '/')."""
        query = {key: value for key, value in fields.items() if key != "scope"}
        if "scope" in fields:
            segment = _segment(fields["scope"])
        else:
            segment = "/".join(_segment(p) for p in query.pop("scope_path", "global").split("/"))
        return await self._call("GET", f"/v1/bulletins/{segment}", params=query)

    async def context(self, fields: Json) -> Json:
        return await self._call("POST", "/v1/context", json=fields)

    async def update(self, memory_id: str, fields: Json) -> Json:
        path = _memory_path(memory_id)
        return await self._call("PATCH", path, params={"wait": "indexed"}, json=fields)

    async def flag(self, memory_id: str, fields: Json) -> Json:
        path = _memory_path(memory_id, "/flags")
        return await self._call("POST", path, params={"wait": "indexed"}, json=fields)

    async def confirm(self, memory_id: str) -> Json:
        path = _memory_path(memory_id, "/confirmations")
        return await self._call("POST", path, params={"wait": "indexed"})

    async def consolidate(self, fields: Json) -> Json:
        params = {"wait": "indexed"}
        return await self._call("POST", "/v1/memories/consolidate", params=params, json=fields)

    async def crystallize(self, memory_id: str, fields: Json) -> Json:
        path = _memory_path(memory_id, "/crystallize")
        return await self._call("POST", path, params={"wait": "indexed"}, json=fields)

    async def get_state(self, scope: str, key: str) -> Json:
        return await self._call("GET", _kv_path(scope, key))

    async def set_state(self, scope: str, key: str, fields: Json) -> Json:
        return await self._call("PUT", _kv_path(scope, key), json=fields)

    async def delete_state(self, scope: str, key: str, fields: Json) -> Json:
        return await self._call("DELETE", _kv_path(scope, key), params=fields)

    async def list_state(self, fields: Json) -> Json:
        return await self._call("GET", "/v1/kv", params=fields)

    async def activity(self, fields: Json) -> Json:
        return await self._call("GET", "/v1/activity", params=fields)

    async def scopes(self) -> Json:
        return await self._call("GET", "/v1/scopes")

    async def skills(self, fields: Json) -> Json:
        return await self._call("GET", "/v1/skills", params=fields)

    async def skill_file(self, memory_id: str) -> str:
        response = await self._send("GET", _memory_path(memory_id, "/skill"))
        if not response.is_success:
            raise ApiError(response.status_code, _detail(response))
        return response.text

    async def _call(self, method: str, path: str, **kwargs: Any) -> Json:
        return _result(await self._send(method, path, **kwargs))

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        url = self._base_url + path
        try:
            return await self._client.request(method, url, headers=self._headers, **kwargs)
        except httpx.TransportError as error:
            raise ApiError(503, _unreachable(self._base_url, error)) from error


def _unreachable(base_url: str, error: httpx.TransportError) -> str:
    reason = str(error) or type(error).__name__
    return (
        f"memhive is unreachable at {base_url} ({reason}). Check that the gateway is running "
        "and that the URL is right, then try again."
    )


def _result(response: httpx.Response) -> Json:
    if response.is_success:
        return response.json()
    raise ApiError(response.status_code, _detail(response))


def _detail(response: httpx.Response) -> str:
    detail = _json_or_empty(response).get("detail")
    if isinstance(detail, list):  # FastAPI's own validation errors: [{loc, msg}, ...]
        return "; ".join(_field_problem(problem) for problem in detail)
    if detail:
        return str(detail)
    return _bare_reason(response)


def _field_problem(problem: Any) -> str:
    if not isinstance(problem, dict):
        return str(problem)
    field = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
    return f"{field}: {problem.get('msg', 'invalid')}" if field else str(problem.get("msg"))


def _bare_reason(response: httpx.Response) -> str:
    text = response.text.strip()[:300]
    return text or response.reason_phrase or f"HTTP {response.status_code}"


def _json_or_empty(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _kv_path(scope: str, key: str) -> str:
    """The node path keeps its '/' (the route's {scope:path}); the key is one segment."""
    return "/".join(["/v1/kv", *(_segment(p) for p in scope.split("/")), _segment(key)])


def _memory_path(memory_id: str, tail: str = "") -> str:
    """The route of one memory. The gateway reads an escaped '/' as a '/' (ASGI paths are
    decoded), so an id holding one would reach another route ('<id>/skill'): no memory's
    id holds one, and such an id is answered here as the gateway answers an unknown one."""
    if "/" in memory_id:
        raise ApiError(404, f"no memory with id {memory_id!r} in this workspace")
    return f"/v1/memories/{_segment(memory_id)}{tail}"


def _segment(value: str) -> str:
    """A value as one path segment: '?' and '#' escaped, and every '.', since HTTP clients
    remove a '.' or '..' segment (RFC 3986 5.2.4) but keep '%2E', read back as '.'."""
    return quote(value, safe="").replace(".", "%2E")
