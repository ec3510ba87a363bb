"""Property-based fuzzing of every MCP tool from its own input schema (hypothesis), against the
real gateway over streamable HTTP, as `test_api_fuzzing` does for REST.

Each call's arguments are drawn from the schema the tool lists, so most are valid or nearly
so, with hostile values mixed in: any JSON value where a field is typed, strings of any
unicode, numbers at and past their bounds, ids of memories that exist. Whatever comes, the
agent gets a result: a success, or a tool error naming a 4xx. Never a 5xx, never the SDK's
generic "error executing tool" (an exception memhive did not map), never a broken session.
A save that succeeds is there to read at once: accepted data is not lost.

Bounded: MEMHIVE_FUZZ_EXAMPLES (6 by default) calls per tool; 60 for a deeper search.
"""

from __future__ import annotations

import asyncio
import os
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import CallToolResult

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_mcp_tools import session

EXAMPLES = int(os.environ.get("MEMHIVE_FUZZ_EXAMPLES", "6"))
NODES = ["global", "product:p1", "product:p1/team:t1", "product:p1/team:t1/agent:agent"]
# Fixed once: a strategy must draw alike each time hypothesis replays it.
NOW = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
PATH_STEPS = [".", "..", "x/..", "../skill", "%2e%2e", "a?b=1", "#top", "\\", "~"]
TAG = r"[a-z0-9][a-z0-9._:/-]{0,20}"  # the REST API's tag rule, shorter
ID_FIELDS = {"id", "src_id", "dst_id", "ids", "supersedes", "also"}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def value_for(
    schema: dict[str, Any], name: str, memory_ids: list[str], *, hostile: bool
) -> st.SearchStrategy:
    """A value the schema allows; with `hostile`, also its edges and past them."""
    if "anyOf" in schema:
        options = [value_for(o, name, memory_ids, hostile=hostile) for o in schema["anyOf"]]
        return st.one_of(options)
    if "enum" in schema:
        return st.sampled_from(schema["enum"]) | (st.text(max_size=12) if hostile else st.nothing())
    kind = schema.get("type")
    if kind == "string":
        return _string(schema, name, memory_ids, hostile=hostile)
    if kind in ("integer", "number"):
        return _number(schema, kind, hostile=hostile)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = value_for(schema.get("items", {}), name, memory_ids, hostile=hostile)
        least, most = schema.get("minItems", 0), schema.get("maxItems", 8)
        return st.lists(items, min_size=least, max_size=most + 1 if hostile else min(most, 8))
    return JSON  # untyped (a key/value entry's value): anything


def _string(
    schema: dict[str, Any], name: str, memory_ids: list[str], *, hostile: bool
) -> st.SearchStrategy:
    least, most = schema.get("minLength", 0), min(schema.get("maxLength", 300), 300)
    if name in ID_FIELDS and memory_ids and not hostile:
        return st.sampled_from(memory_ids)
    if name.startswith("scope") and not hostile:
        return st.sampled_from(NODES)
    if name == "product_id" and not hostile:
        return st.sampled_from(["p1", "p2"])
    if name in ("tag", "tags") and not hostile:
        return st.from_regex(TAG, fullmatch=True)
    if schema.get("format") == "date-time" or name.endswith(("_at", "_after", "_before", "since")):
        return _moments(future=name == "expires_at", hostile=hostile)
    if "pattern" in schema:
        texts = st.from_regex(schema["pattern"], fullmatch=True)
    else:
        words = st.characters(categories=["L", "N", "P", "Zs"])
        texts = st.text(alphabet=words, min_size=max(least, 1), max_size=most)
    if hostile:
        texts |= st.text(max_size=most) | st.just("x" * (schema.get("maxLength", 300) + 1))
        texts |= st.sampled_from([*memory_ids, *NODES, *PATH_STEPS])
    return texts


def _moments(*, future: bool, hostile: bool) -> st.SearchStrategy:
    """A moment within two years of now (ahead of it for an expiry); with `hostile`, any
    moment of years 1..9999 at any offset or none, and text that is no moment."""
    low = NOW + timedelta(hours=1) if future else NOW - timedelta(days=730)
    moments = st.datetimes(low, NOW + timedelta(days=730), timezones=st.just(UTC))
    if hostile:
        moments |= st.datetimes(timezones=st.none() | st.timezones())
    texts = moments.map(lambda moment: moment.isoformat())
    return texts | st.text(max_size=30) if hostile else texts


def _number(schema: dict[str, Any], kind: str, *, hostile: bool) -> st.SearchStrategy:
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind == "integer":
        inside = st.integers(min_value=low, max_value=high)
        wider = st.integers() | st.floats()
    else:
        inside = st.floats(min_value=low, max_value=high, allow_nan=False)
        wider = st.floats() | st.integers()
    edges = st.sampled_from([edge for edge in (low, high) if edge is not None] or [0])
    return inside | edges | wider if hostile else inside | edges


@st.composite
def arguments_for(draw, schema: dict[str, Any], memory_ids: list[str]) -> dict[str, Any]:
    """A call whose every argument the schema allows, or a hostile one: values at and past
    the schema's bounds, any JSON where a type is expected, an argument no tool takes."""
    hostile = draw(st.booleans())
    arguments = {}
    required = set(schema.get("required", ()))
    for name, field in schema.get("properties", {}).items():
        if name not in required and draw(st.booleans()):
            continue  # omitted
        if hostile and draw(st.integers(0, 5)) == 0:
            arguments[name] = draw(JSON)
        else:
            arguments[name] = draw(value_for(field, name, memory_ids, hostile=hostile))
    if hostile and draw(st.integers(0, 5)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(JSON)  # an unknown argument
    return arguments


def judge(tool: str, arguments: dict[str, Any], result: CallToolResult) -> None:
    if not result.is_error:
        return
    error = (result.structured_content or {}).get("error")
    text = "\n".join(block.text for block in result.content)
    assert error is not None, f"{tool}({arguments!r}) was not a memhive error: {text}"
    assert 400 <= error["status"] < 500, f"{tool}({arguments!r}) answered {error}: {text}"
    assert not re.search(r"Traceback|File \"", text), text


async def seed(workspace: Workspace, label: str) -> str:
    saved = await save(workspace.member, kind="fact", body=f"Seed fact {label} for the fuzzing")
    return saved["id"]


@pytest.mark.timeout(600)
async def test_every_tool_answers_any_arguments_with_a_result_or_a_4xx_tool_error(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member = await stack.token(workspace.id)
    loop = asyncio.get_running_loop()
    async with session(gateway_url, member) as agent:
        tools = (await agent.list_tools()).tools
        assert len(tools) >= 18
        calls: list[str] = []

        async def call(tool: str, arguments: dict[str, Any]) -> None:
            result = await agent.call_tool(tool, arguments)
            judge(tool, arguments, result)
            saved = (result.structured_content or {}).get("id")
            if tool == "save_memory" and not result.is_error and saved:
                got = await agent.call_tool("get_memory", {"id": saved})
                assert not got.is_error, (arguments, got.content)
                assert got.structured_content["kind"] == arguments["kind"]
            calls.append(tool)

        def fuzzing(name: str, schema: dict[str, Any], memory_ids: list[str]):
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(arguments=arguments_for(schema, memory_ids))
            def each(arguments: dict[str, Any]) -> None:
                future = asyncio.run_coroutine_threadsafe(call(name, arguments), loop)
                future.result(timeout=60)

            return each

        for tool in tools:  # each with memories of its own: another tool may have forgotten some
            memory_ids = [await seed(workspace, f"{tool.name} {n}") for n in range(3)]
            await asyncio.to_thread(fuzzing(tool.name, tool.input_schema, memory_ids))

        assert len(set(calls)) == len(tools)  # every tool was called
        still = await agent.call_tool("recall_memory", {"query": "Seed fact"})
        assert not still.is_error
    async with httpx.AsyncClient(base_url=gateway_url) as client:
        assert (await client.get("/healthz")).status_code == 200
