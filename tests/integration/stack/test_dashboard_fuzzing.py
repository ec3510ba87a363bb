"""The dashboard's pages take any query a browser can send (hypothesis): a page or a 4xx page
naming what is wrong, never a 5xx, and what is echoed back is escaped.

The REST API is fuzzed from its OpenAPI document (`test_api_fuzzing`); the dashboard's HTML
routes are not in that document, so their parameters are drawn here: each filter of the
index (search text, kinds, nodes, days, sorting, a cursor, a count), a memory's page, the
key/value page of a node. Values are those a person would type, and any text at all.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_dashboard_pages import signed_in

ANY_TEXT = st.text(max_size=80) | st.builds(lambda n: "y" * n, st.integers(300, 20_000))
MARKUP = "<script>alert(1)</script>"
TYPED = {
    "q": st.sampled_from(["deploy", "payment retries", MARKUP, "   "]),
    "kind": st.sampled_from(["fact", "decision", "rumour", ""]),
    "scope": st.sampled_from(["global", "product", "team", ""]),
    "product_id": st.sampled_from(["web", "ios app", "", "a" * 129]),
    "scope_path": st.sampled_from(["global", "product:web/team:core", "product:", "team:x"]),
    "tag": st.sampled_from(["ci", "Build", "a/b", ""]),
    "visibility": st.sampled_from(["public", "private", "secret"]),
    "source": st.sampled_from(["agent", "upstream", "fax"]),
    "created_from": st.sampled_from(["2026-01-01", "0001-01-01", "9999-12-31", "soon"]),
    "created_to": st.sampled_from(["2026-12-31", "2025-01-01", "10000-01-01"]),
    "sort": st.sampled_from(["newest", "importance", "sideways"]),
    "weaker": st.sampled_from(["1", "", "no"]),
    "expired": st.sampled_from(["1", ""]),
    "after": st.sampled_from(["k1.AAAA", "bzoxMDAwMDAwMDAwMA==", ""]),
    "seen": st.sampled_from(["0", "25", "-1", "1000000001", "x"]),
}
EXAMPLES = 120


@st.composite
def index_query(draw) -> dict[str, str]:
    """Some of the index's filters, each as the page's form writes it or as any text."""
    names = draw(st.lists(st.sampled_from(sorted(TYPED)), max_size=5, unique=True))
    return {name: draw(TYPED[name] | ANY_TEXT) for name in names}


@st.composite
def visits(draw, memory_id: str) -> tuple[str, dict[str, Any], bool]:
    """A page, its query, and whether htmx asks for the results alone."""
    path = draw(st.sampled_from(["/memory", "/memory", "/memory/m", "/memory/state"]))
    if path == "/memory/m":
        shown = draw(st.sampled_from([memory_id, "not-an-id"]) | ANY_TEXT)
        return f"/memory/m/{quote(shown, safe='').replace('.', '%2E')}", {}, False
    if path == "/memory/state":
        scope = draw(st.sampled_from(["global", "product:web", "product:web/.."]) | ANY_TEXT)
        return path, {"scope": scope, "after": draw(st.none() | ANY_TEXT)}, False
    return path, draw(index_query()), draw(st.booleans())


@pytest.mark.timeout(300)
async def test_any_dashboard_query_gets_a_page_or_a_4xx_never_a_5xx(
    stack: Stack, workspace: Workspace
) -> None:
    memory_id = (await save(workspace.member, kind="fact", body="Deploys need a green build"))["id"]
    loop = asyncio.get_running_loop()
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):

        async def visit(path: str, params: dict[str, Any], partial: bool) -> None:
            headers = {"HX-Request": "true"} if partial else {}
            response = await client.get(path, params=params, headers=headers)
            assert response.status_code < 500, (path, params, response.text[:500])
            assert response.status_code in (200, 404, 422), (path, params, response.status_code)
            assert MARKUP not in response.text, (path, params)  # escaped where echoed
            if partial and response.status_code == 200:
                assert response.text.lstrip().startswith('<section id="results"')

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(visits(memory_id))
        def each(visit_: tuple[str, dict[str, Any], bool]) -> None:
            asyncio.run_coroutine_threadsafe(visit(*visit_), loop).result(timeout=60)

        await asyncio.to_thread(each)
        assert (await client.get("/memory")).status_code == 200
