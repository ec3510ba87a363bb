"""Every way in is in the policy table (docs/access-control.md): each route the gateway app
serves (REST, dashboard, docs, probes) and each MCP tool is listed under the action it
needs, or among those reached without a principal; and nothing listed is gone."""

from __future__ import annotations

import re

from fastapi.routing import iter_route_contexts
from memhive_domain.policy import NO_PRINCIPAL, REACHED_FROM
from memhive_query.mcp.registry import TOOLS
from starlette.routing import Mount

from tests.integration.stack.conftest import Stack

ENTRIES = [e for entries in REACHED_FROM.values() for e in entries]


def route(entry: str) -> tuple[str, str]:
    """("GET", "/v1/memories/{}"): the method and the path, parameters unnamed."""
    method, _, path = entry.partition(" (")[0].partition(" ")
    return method, re.sub(r"\{[^}]*\}", "{}", path)


def served_routes(app) -> set[tuple[str, str]]:
    served = set()
    for context in iter_route_contexts(app.routes):
        if isinstance(context.original_route, Mount):
            if context.path == "":  # the MCP app, mounted at the root: its tools below
                continue
            served.add(route(f"GET {context.path_format}"))
        else:
            served |= {route(f"{m} {context.path_format}") for m in context.methods - {"HEAD"}}
    return served


def test_every_route_of_the_app_is_in_the_policy_table(stack: Stack) -> None:
    http = [e for e in ENTRIES if not e.startswith(("MCP ", "CLI "))]
    listed = {route(e) for e in (*http, *NO_PRINCIPAL)}

    served = served_routes(stack.app)

    assert served - listed == set(), "add these routes to policy.REACHED_FROM or NO_PRINCIPAL"
    assert listed - served == set(), "these routes are listed but not served"
    assert ("PUT", "/v1/products/{}") in served  # the walk sees included routers


def test_every_mcp_tool_is_in_the_policy_table() -> None:
    listed = {e.partition(" (")[0].removeprefix("MCP ") for e in ENTRIES if e.startswith("MCP ")}

    assert listed == {tool.name for tool in TOOLS}
