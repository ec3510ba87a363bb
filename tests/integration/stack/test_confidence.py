"""Knowing when nothing matches, over REST and MCP: every result carries a confidence, and
min_confidence (REST default 0, MCP default 0.01) leaves out what cannot be the answer."""

from __future__ import annotations

from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_mcp_tools import session, text

BODIES = (
    "The billing service stores invoices in PostgreSQL 16",
    "Deploys go out on Tuesdays after the standup",
    "Priya owns the on-call rotation",
)


async def recalled(workspace: Workspace, query: str, **fields) -> list[dict]:
    response = await workspace.member.post("/v1/recall", json={"query": query, **fields})
    assert response.status_code == 200, response.text
    return response.json()["results"]


async def test_rest_results_carry_a_confidence_and_a_floor_leaves_out_non_answers(
    workspace: Workspace,
) -> None:
    ids = [(await save(workspace.member, kind="fact", body=b))["id"] for b in BODIES]

    everything = await recalled(workspace, "What is the capital of France?")
    floored = await recalled(workspace, "What is the capital of France?", min_confidence=0.01)
    answer = await recalled(workspace, "Which database holds the invoices?", min_confidence=0.01)

    assert everything, "without a floor recall still returns its best matches"
    assert all(0 <= r["confidence"] < 0.01 for r in everything)
    assert floored == []
    assert answer[0]["id"] == ids[0]
    assert answer[0]["confidence"] >= 0.01
    assert answer[0]["confidence"] > max(r["confidence"] for r in everything)


async def test_rest_refuses_a_floor_outside_zero_to_one(workspace: Workspace) -> None:
    response = await workspace.member.post("/v1/recall", json={"query": "x", "min_confidence": 2})
    assert response.status_code == 422
    assert "min_confidence" in response.text


async def test_mcp_agents_get_nothing_for_an_unanswerable_question_by_default(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    for body in BODIES:
        await save(workspace.member, kind="fact", body=body)
    async with session(gateway_url, await stack.token(workspace.id)) as agent:
        unanswerable = await agent.call_tool(
            "recall_memory", {"query": "Who wrote Pride and Prejudice?"}
        )
        everything = await agent.call_tool(
            "recall_memory", {"query": "Who wrote Pride and Prejudice?", "min_confidence": 0}
        )
        answerable = await agent.call_tool("recall_memory", {"query": "who is on call?"})

    assert unanswerable.structured_content["results"] == []
    assert "nothing stored seems to answer this" in text(unanswerable)
    assert len(everything.structured_content["results"]) == len(BODIES)
    assert "Priya" in answerable.structured_content["results"][0]["body"]
    assert "confidence" in text(answerable)
