"""POST /v1/memories/consolidate: several memories become one that updates each, in one step;
recall then serves the new one in their place."""

from __future__ import annotations

from tests.integration.stack.conftest import Workspace, recall_ids, save


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
