"""RestMemoryApi against a local HTTP server speaking the gateway's REST shapes."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator

import pytest
from memhive_query.mcp.api import ApiError, NearDuplicatesFound
from memhive_query.mcp.rest_api import RestMemoryApi

from tests.integration.mcp.http_server import serving
from tests.integration.mcp.rest_gateway_app import REST_TOKEN, build_rest_gateway
from tests.unit.mcp.fake_api import FakeMemoryApi


@pytest.fixture
def backing() -> FakeMemoryApi:
    return FakeMemoryApi()


@pytest.fixture
def rest_url(backing: FakeMemoryApi) -> Iterator[str]:
    with serving(build_rest_gateway(backing)) as base_url:
        yield base_url


@pytest.fixture
async def api(rest_url: str) -> AsyncIterator[RestMemoryApi]:
    rest = RestMemoryApi(rest_url, REST_TOKEN)
    yield rest
    await rest.aclose()


async def test_save_recall_get_list_forget_round_trip(api: RestMemoryApi) -> None:
    saved = await api.save(
        {"kind": "decision", "body": "Deploys happen on Fridays", "tags": ["ops"]}
    )
    memory_id = saved["id"]

    recalled = await api.recall({"query": "deploys fridays", "max_results": 3})
    got = await api.get(memory_id)
    page = await api.list({"tag": "ops", "limit": 5})
    forgotten = await api.forget(memory_id)

    assert saved["status"] == "indexed"
    assert [r["id"] for r in recalled["results"]] == [memory_id]
    assert got == saved["memory"]
    assert [m["id"] for m in page["items"]] == [memory_id] and page["next_cursor"] is None
    assert forgotten == {"id": memory_id, "status": "forgotten"}


async def test_link_bulletin_and_context_keep_their_shapes(api: RestMemoryApi) -> None:
    old = (await api.save({"kind": "fact", "body": "Swift 5 is the target"}))["id"]
    new = (
        await api.save({"kind": "fact", "body": "Swift 6 is now the target", "product_id": "ios"})
    )["id"]

    linked = await api.link({"src_id": new, "dst_id": old, "kind": "updates"})
    bulletin = await api.bulletin({"scope": "product", "product_id": "ios"})
    pack = await api.context({"token_budget": 100, "query": "swift"})

    assert linked["status"] == "created" and linked["edge"]["kind"] == "updates"
    assert bulletin["memory_ids"] == [new] and bulletin["scope"] == "product"
    assert {item["id"] for item in pack["items"]} == {old, new}


async def test_unknown_id_is_404_with_the_servers_detail(api: RestMemoryApi) -> None:
    with pytest.raises(ApiError) as refused:
        await api.get("mem_missing")

    assert refused.value.status == 404
    assert "No memory with id 'mem_missing'" in refused.value.message


async def test_validation_detail_is_passed_through(api: RestMemoryApi) -> None:
    with pytest.raises(ApiError) as refused:
        await api.save({"kind": "fact", "body": "x", "scope": "product"})

    assert (refused.value.status, refused.value.message) == (
        422,
        "product_id: is required when scope is 'product'",
    )


async def test_fastapi_validation_list_becomes_field_messages(api: RestMemoryApi) -> None:
    with pytest.raises(ApiError) as refused:
        await api.recall({"max_results": 3})

    assert refused.value.status == 422
    assert refused.value.message == "query: Field required"


async def test_near_duplicate_409_carries_the_similar_memories(api: RestMemoryApi) -> None:
    first = await api.save({"kind": "fact", "body": "The iOS app targets Swift 5"})

    with pytest.raises(NearDuplicatesFound) as conflict:
        await api.save({"kind": "fact", "body": "The iOS app targets Swift 5 for now"})

    assert conflict.value.status == 409
    assert [m["id"] for m in conflict.value.similar] == [first["id"]]


async def test_read_only_token_is_403(rest_url: str, backing: FakeMemoryApi) -> None:
    backing.member = False
    async with RestMemoryApi(rest_url, REST_TOKEN) as api:
        with pytest.raises(ApiError) as refused:
            await api.save({"kind": "fact", "body": "nope"})

    assert refused.value.status == 403


async def test_wrong_token_is_401(rest_url: str) -> None:
    async with RestMemoryApi(rest_url, "wrong") as api:
        with pytest.raises(ApiError) as refused:
            await api.recall({"query": "anything"})

    assert refused.value.status == 401
    assert "check --token" in refused.value.message


async def test_unreachable_gateway_is_an_actionable_503() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    async with RestMemoryApi(url, REST_TOKEN) as api:
        with pytest.raises(ApiError) as refused:
            await api.recall({"query": "anything"})

    assert refused.value.status == 503
    assert f"memhive is unreachable at {url}" in refused.value.message


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
