from __future__ import annotations

from memhive_domain.kinds import MemoryKind

from tests.unit.mcp.conftest import Connect

EXPECTED_TOOLS = {
    "save_memory",
    "recall_memory",
    "forget_memory",
    "get_memory",
    "list_memories",
    "link_memories",
    "get_memory_bulletin",
    "get_context",
    "update_memory",
    "flag_memory",
    "confirm_memory",
    "consolidate_memories",
    "crystallize_memory",
    "get_state",
    "set_state",
    "delete_state",
    "list_state",
    "recent_activity",
}


async def tools_by_name(connect: Connect) -> dict:
    async with connect() as client:
        listing = await client.list_tools()
    return {tool.name: tool for tool in listing.tools}


async def test_every_tool_is_listed_with_a_description(connect: Connect) -> None:
    tools = await tools_by_name(connect)

    assert set(tools) == EXPECTED_TOOLS
    assert all(len(tool.description or "") > 80 for tool in tools.values())


async def test_every_argument_is_described(connect: Connect) -> None:
    for tool in (await tools_by_name(connect)).values():
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"


async def test_save_schema_requires_kind_and_body_and_lists_the_kinds(connect: Connect) -> None:
    schema = (await tools_by_name(connect))["save_memory"].input_schema

    assert sorted(schema["required"]) == ["body", "kind"]
    assert schema["properties"]["kind"]["enum"] == [kind.value for kind in MemoryKind]
    assert _enum_of(schema["properties"]["visibility"]) == ["public", "private"]


async def test_recall_schema_bounds_max_results(connect: Connect) -> None:
    max_results = (await tools_by_name(connect))["recall_memory"].input_schema["properties"][
        "max_results"
    ]

    assert (max_results["minimum"], max_results["maximum"], max_results["default"]) == (1, 20, 6)


async def test_link_and_bulletin_schemas_enumerate_their_choices(connect: Connect) -> None:
    tools = await tools_by_name(connect)

    assert tools["link_memories"].input_schema["properties"]["kind"]["enum"] == [
        "updates",
        "contradicts",
        "related_to",
    ]
    bulletin = tools["get_memory_bulletin"].input_schema
    assert bulletin.get("required", []) == []  # scope, scope_path, or nothing: global
    assert _enum_of(bulletin["properties"]["scope"]) == ["global", "product"]
    assert bulletin["properties"]["scope_path"]["anyOf"][0]["maxLength"] == 300
    assert tools["get_context"].input_schema["required"] == ["token_budget"]


async def test_read_only_and_destructive_tools_say_so(connect: Connect) -> None:
    tools = await tools_by_name(connect)

    assert tools["recall_memory"].annotations.read_only_hint is True
    assert tools["forget_memory"].annotations.destructive_hint is True
    assert tools["save_memory"].annotations.read_only_hint is False


async def test_state_schemas_check_the_key_and_require_a_value(connect: Connect) -> None:
    tools = await tools_by_name(connect)

    set_state = tools["set_state"].input_schema
    assert sorted(set_state["required"]) == ["key", "scope", "value"]
    assert set_state["properties"]["key"]["pattern"].startswith("^[A-Za-z0-9]")
    assert tools["delete_state"].annotations.destructive_hint is True
    assert tools["get_state"].annotations.read_only_hint is True


def _enum_of(schema: dict) -> list[str]:
    return next(option["enum"] for option in schema["anyOf"] if "enum" in option)
