"""Save, recall, get, list, forget, link, bulletin and context through an MCP session."""

from __future__ import annotations

from mcp import Client
from mcp.types import CallToolResult

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


async def call(client: Client, tool: str, **arguments: object) -> CallToolResult:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return result


async def test_saved_memory_is_recalled_with_its_id_in_text_and_structure(connect: Connect) -> None:
    async with connect() as client:
        saved = await call(client, "save_memory", kind="decision", body="We deploy on Fridays")
        await call(client, "save_memory", kind="fact", body="The cat is called Miso")
        recalled = await call(client, "recall_memory", query="when do we deploy")

    memory_id = saved.structured_content["id"]
    assert memory_id in text_of(saved)
    assert [r["id"] for r in recalled.structured_content["results"]] == [memory_id]
    assert f"[{memory_id}] decision" in text_of(recalled)
    assert "We deploy on Fridays" in text_of(recalled)


async def test_save_sends_only_the_fields_given(connect: Connect, fake_api: FakeMemoryApi) -> None:
    async with connect() as client:
        await call(
            client,
            "save_memory",
            kind="fact",
            body="Builds use uv",
            tags=["build"],
            product_id="ios-app",
            expires_at="2027-01-31T00:00:00Z",
        )

    ((name, fields),) = fake_api.calls
    assert name == "save"
    assert fields == {
        "kind": "fact",
        "body": "Builds use uv",
        "tags": ["build"],
        "product_id": "ios-app",
        "expires_at": "2027-01-31T00:00:00+00:00",
    }


async def test_recall_passes_filters_and_limit(connect: Connect, fake_api: FakeMemoryApi) -> None:
    async with connect() as client:
        await call(client, "recall_memory", query="deploys", kinds=["decision"], max_results=3)

    expected = {"query": "deploys", "kinds": ["decision"], "max_results": 3}
    assert fake_api.calls == [("recall", expected | {"min_confidence": 0.01})]


async def test_recall_passes_a_lower_confidence_floor(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        await call(client, "recall_memory", query="deploys", min_confidence=0)

    assert fake_api.calls == [
        ("recall", {"query": "deploys", "max_results": 6, "min_confidence": 0.0})
    ]


async def test_recall_with_nothing_matching_says_so(connect: Connect) -> None:
    async with connect() as client:
        result = await call(client, "recall_memory", query="quantum chromodynamics")

    assert result.structured_content == {"results": []}
    assert "nothing stored seems to answer this" in text_of(result)


async def test_forgotten_memory_is_no_longer_recalled(connect: Connect) -> None:
    async with connect() as client:
        saved = await call(
            client, "save_memory", kind="fact", body="The staging password rotates monthly"
        )
        memory_id = saved.structured_content["id"]
        forgotten = await call(client, "forget_memory", id=memory_id)
        recalled = await call(client, "recall_memory", query="staging password")

    assert forgotten.structured_content == {"id": memory_id, "status": "forgotten"}
    assert recalled.structured_content["results"] == []


async def test_get_returns_the_whole_memory(connect: Connect) -> None:
    async with connect() as client:
        saved = await call(
            client, "save_memory", kind="preference", body="Prefer tabs", tags=["style"]
        )
        got = await call(client, "get_memory", id=saved.structured_content["id"])

    assert got.structured_content == saved.structured_content["memory"]
    assert "Prefer tabs" in text_of(got)
    assert "tags: ['style']" in text_of(got)


async def test_list_pages_with_a_cursor(connect: Connect) -> None:
    async with connect() as client:
        for n in range(3):
            await call(client, "save_memory", kind="todo", body=f"Task number {n}")
        first = await call(client, "list_memories", kind="todo", limit=2)
        cursor = first.structured_content["next_cursor"]
        second = await call(client, "list_memories", kind="todo", limit=2, cursor=cursor)

    assert len(first.structured_content["items"]) == 2
    assert f"cursor={cursor!r}" in text_of(first)
    assert [m["body"] for m in second.structured_content["items"]] == ["Task number 2"]
    assert second.structured_content["next_cursor"] is None


async def test_exact_duplicate_returns_the_existing_id(connect: Connect) -> None:
    async with connect() as client:
        first = await call(client, "save_memory", kind="fact", body="Postgres 16 in prod")
        again = await call(client, "save_memory", kind="fact", body="Postgres 16 in prod")

    assert again.structured_content["id"] == first.structured_content["id"]
    assert "Already remembered" in text_of(again)


async def test_near_duplicate_is_a_normal_result_that_says_how_to_proceed(connect: Connect) -> None:
    async with connect() as client:
        first = await call(client, "save_memory", kind="fact", body="The iOS app targets Swift 5")
        clash = await client.call_tool(
            "save_memory", {"kind": "fact", "body": "The iOS app targets Swift 5 and 6"}
        )
        forced = await call(
            client, "save_memory", kind="fact", body="The iOS app targets Swift 5 and 6", force=True
        )

    old_id = first.structured_content["id"]
    assert clash.is_error is False
    assert clash.structured_content["status"] == "near_duplicate"
    assert [m["id"] for m in clash.structured_content["similar"]] == [old_id]
    assert old_id in text_of(clash) and "supersedes" in text_of(clash)
    assert forced.structured_content["status"] == "indexed"


async def test_link_reports_created_then_unchanged(connect: Connect) -> None:
    async with connect() as client:
        old = await call(client, "save_memory", kind="fact", body="Swift 5 is the target")
        new = await call(client, "save_memory", kind="fact", body="Swift 6 is now the target")
        link = {
            "src_id": new.structured_content["id"],
            "dst_id": old.structured_content["id"],
            "kind": "updates",
            "rationale": "version bump",
        }
        created = await call(client, "link_memories", **link)
        repeated = await call(client, "link_memories", **link)

    assert created.structured_content["status"] == "created"
    assert repeated.structured_content["status"] == "unchanged"
    assert text_of(created).startswith(f"Linked: {link['src_id']} updates {link['dst_id']}")


async def test_bulletin_and_context_return_their_text(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    async with connect() as client:
        await call(client, "save_memory", kind="goal", body="Ship the beta", product_id="ios-app")
        bulletin = await call(client, "get_memory_bulletin", scope="product", product_id="ios-app")
        pack = await call(client, "get_context", token_budget=50, query="beta")

    assert "Ship the beta" in text_of(bulletin)
    assert bulletin.structured_content["product_id"] == "ios-app"
    assert "Ship the beta" in text_of(pack)
    assert pack.structured_content["tokens_used"] == 3
    assert fake_api.calls[-1] == ("context", {"query": "beta", "token_budget": 50})


async def test_counts_read_right_for_one(connect: Connect) -> None:
    async with connect() as client:
        await call(client, "save_memory", kind="decision", body="We deploy on Fridays")
        recalled = await call(client, "recall_memory", query="when do we deploy")
        listed = await call(client, "list_memories")
        await call(client, "set_state", scope="team:ops", key="plan", value=1)
        keys = await call(client, "list_state", scope="team:ops")

    assert text_of(recalled).startswith("1 memory, best first:")
    assert text_of(listed).startswith("1 memory:")
    assert text_of(keys).startswith("1 key at team:ops:")
