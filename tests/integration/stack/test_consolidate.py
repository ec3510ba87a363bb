"""POST /v1/memories/consolidate: several memories become one that updates each, in one step;
recall then serves the new one in their place."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from memhive_contracts.bus_permissions import QUERY
from memhive_query.app import create_app
from memhive_settings import LLMSettings

from tests.fakes import FixedClock
from tests.integration.llm.chat_server import LITELLM_WARNINGS, Reply, running_chat_server
from tests.integration.stack.conftest import Stack, Workspace, app_running, recall_ids, save


async def test_consolidated_memories_are_replaced_by_the_new_one_in_recall(
    workspace: Workspace,
) -> None:
    first = await save(
        workspace.member, kind="fact", body="The VPN gateway is vpn1.example.org", tags=["net"]
    )
    second = await save(
        workspace.member,
        kind="fact",
        body="The VPN needs the okta client",
        tags=["vpn"],
        visibility="private",
    )
    merged = await workspace.member.post(
        "/v1/memories/consolidate?wait=indexed",
        json={
            "ids": [first["id"], second["id"], first["id"]],
            "body": "The VPN gateway is vpn1.example.org and needs the okta client",
        },
    )
    assert merged.status_code == 201, merged.text
    answer = merged.json()
    assert answer["consolidated"] == [first["id"], second["id"]]
    memory = answer["memory"]
    assert (memory["kind"], sorted(memory["tags"]), memory["visibility"]) == (
        "fact",
        ["net", "vpn"],
        "private",
    )
    assert await recall_ids(workspace.member, "VPN gateway okta client") == [answer["id"]]
    edges = (await workspace.member.get(f"/v1/memories/{answer['id']}/edges")).json()
    kinds = {(e["dst_id"], e["kind"]) for e in edges.get("edges", edges.get("items", []))}
    assert kinds == {(first["id"], "updates"), (second["id"], "updates")}


async def test_bad_consolidations_are_refused_with_the_field_named(workspace: Workspace) -> None:
    fact = await save(workspace.member, kind="fact", body="Coffee machine is on floor 2")
    todo = await save(workspace.member, kind="todo", body="Descale the coffee machine")
    other = await save(workspace.member, kind="fact", body="Kettle is on floor 3", product_id="ops")
    url = "/v1/memories/consolidate"

    async def problem(payload: dict) -> tuple[int, set[str]]:
        response = await workspace.member.post(url, json=payload)
        return response.status_code, {p["field"] for p in response.json().get("problems", [])}

    assert await problem({"ids": [fact["id"]], "body": "x"}) == (422, {"ids"})
    assert await problem({"ids": [fact["id"], todo["id"]], "body": "x"}) == (422, {"kind"})
    assert await problem({"ids": [fact["id"], other["id"]], "body": "x"}) == (422, {"ids"})
    assert await problem({"ids": [fact["id"], todo["id"]]}) == (422, {"body"})
    no_llm = await problem({"ids": [fact["id"], todo["id"]], "summarize": True, "kind": "fact"})
    assert no_llm == (422, {"body"})
    missing = await workspace.member.post(
        url, json={"ids": [fact["id"], "00000000-0000-0000-0000-000000000009"], "body": "x"}
    )
    assert missing.status_code == 404
    refused = await workspace.reader.post(url, json={"ids": [fact["id"], todo["id"]], "body": "x"})
    assert refused.status_code in (403, 404)


@asynccontextmanager
async def gateway_replica(
    stack: Stack, llm: dict, clock: FixedClock, name: str
) -> AsyncIterator[Stack]:
    """Another gateway process, as `memhive serve query` would be: its own connection as the
    query bus user (so its bus permissions apply), an LLM configured, the stack's lanes."""
    infra = await stack.infra.connect_as(QUERY, name=name)
    infra.settings = stack.infra.settings.model_copy(update={"llm": LLMSettings(**llm)})
    infra.clock = clock
    try:
        app = await create_app(infra)
        async with app_running(app):
            yield Stack(stack.infra, app)
    finally:
        await infra.close()


@LITELLM_WARNINGS
async def test_gateway_replicas_share_one_llm_spend_bound_for_summaries(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    # One clock for both replicas, so both count in the same UTC minute whatever the wall says.
    clock = FixedClock(datetime.now(UTC))
    async with running_chat_server(
        Reply("The kettle and the coffee machine are on floor 2")
    ) as llm:
        settings = {"model": "openai/stub", "api_base": llm.url, "api_key": "sk-test"}
        settings |= {"calls_per_minute": 1, "tokens_per_day": 100_000}
        async with (
            gateway_replica(stack, settings, clock, "gateway-a") as a,
            gateway_replica(stack, settings, clock, "gateway-b") as b,
        ):
            token = await stack.token(workspace)
            async with a.client(token) as on_a, b.client(token) as on_b:
                first = [
                    await save(on_a, kind="fact", body=f"Kettle {i} is on floor 2") for i in (1, 2)
                ]
                second = [
                    await save(on_a, kind="fact", body=f"Coffee {i} is on floor 2") for i in (1, 2)
                ]
                url = "/v1/memories/consolidate?wait=indexed"

                def ids(memories: list[dict]) -> dict:
                    return {"ids": [m["id"] for m in memories], "summarize": True}

                merged = await on_a.post(url, json=ids(first))
                refused = await on_b.post(url, json=ids(second))

    assert merged.status_code == 201, merged.text
    assert merged.json()["memory"]["body"] == "The kettle and the coffee machine are on floor 2"
    # Replica B's own count is 0, yet the bound is spent: it counts on the bus with A's.
    assert refused.status_code == 503, refused.text
    assert "spend bound" in refused.json()["detail"]
    assert len(llm.requests) == 1
