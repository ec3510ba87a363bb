"""Read-only MCP resources: the bulletin of any node of the scope tree and every skill
(a crystallized procedure's SKILL.md), behind the same REST routes and rules as the tools.

Templates name every resource (`memhive://bulletins/{+scope}`, `memhive://skills/{memory_id}`);
`resources/list` names the ones a caller most likely wants: the workspace's bulletin, that of
each product it may see (recorded, or named by a memory it reads: GET /v1/scopes), and its
skills (at most LISTED_SKILL_PAGES pages of procedures, so a listing stays bounded in a large
workspace; the templates reach the rest).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from mcp.shared.exceptions import MCPError
from mcp.types import Resource
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from memhive_query.mcp.api import ApiError, Json, MemoryApi
from memhive_query.mcp.rendering import render_error
from memhive_query.mcp.tool_spec import ApiForRequest

BULLETINS = "memhive://bulletins/{+scope}"
SKILLS = "memhive://skills/{memory_id}"
MARKDOWN = "text/markdown"
LISTED_SKILL_PAGES = 5
T = TypeVar("T")


def register_resources(server: MCPServer, api_for_request: ApiForRequest) -> None:
    # The scope is a node path ("product:ios/team:mobile"): the gateway parses it strictly,
    # so the SDK's file-path checks (absolute paths, "..") do not apply to it.
    @server.resource(
        BULLETINS,
        name="bulletin",
        title="Scope bulletin",
        description="The standing briefing of a node of the scope tree ('global', "
        "'product:ios', 'product:ios/team:mobile', ...): pinned memories, decisions, facts, "
        "preferences, goals and todos, each with its memory id.",
        mime_type=MARKDOWN,
        security=ResourceSecurity(exempt_params=frozenset({"scope"})),
    )
    async def bulletin(scope: str) -> str:
        return (await answered(api_for_request().bulletin({"scope_path": scope}), scope))["text"]

    @server.resource(
        SKILLS,
        name="skill",
        title="Skill (SKILL.md)",
        description="A skill crystallized from proven procedures: front matter, numbered "
        "steps and provenance, ready to save as SKILL.md.",
        mime_type=MARKDOWN,
    )
    async def skill(memory_id: str) -> str:
        return await answered(api_for_request().skill_file(memory_id), memory_id)


async def listed_resources(api: MemoryApi) -> list[Resource]:
    scopes = (await answered(api.scopes(), "scopes"))["items"]
    bulletins = [_bulletin(scope["scope_path"], scope.get("name")) for scope in scopes]
    return bulletins + [_skill(s) for s in await _skills(api)]


async def _skills(api: MemoryApi) -> list[Json]:
    found: list[Json] = []
    cursor = None
    for _ in range(LISTED_SKILL_PAGES):
        fields = {"limit": 100} | ({"cursor": cursor} if cursor else {})
        page = await answered(api.skills(fields), "skills")
        found += page["items"]
        if not (cursor := page.get("next_cursor")):
            break
    return found


def _bulletin(node: str, name: str | None) -> Resource:
    called = f"{node} ({name})" if name else node
    return Resource(
        uri=BULLETINS.replace("{+scope}", node),
        name=f"bulletin {node}",
        title=f"Bulletin: {called}",
        description=f"The standing briefing of {called}.",
        mime_type=MARKDOWN,
    )


def _skill(found: Json) -> Resource:
    return Resource(
        uri=SKILLS.replace("{memory_id}", found["id"]),
        name=found["name"],
        title=f"Skill: {found['name']}",
        description=found["description"],
        mime_type=MARKDOWN,
    )


async def answered(call: Awaitable[T], what: str) -> T:
    """The API's answer; a refusal as an MCP error the client can read (the same text a tool
    error has): invalid params for what the caller asked wrongly or may not read, an
    internal error when memhive could not answer."""
    try:
        return await call
    except ApiError as error:
        code = INTERNAL_ERROR if error.status >= 500 else INVALID_PARAMS
        text = render_error(error.status, error.message)
        raise MCPError(code, text, {"status": error.status, "resource": what}) from error
