"""Edges over the real bus: links, supersession at recall, and conflict detection at save."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
import pytest
from memhive.v1 import edges_pb2
from memhive_contracts.mapping import to_timestamp
from memhive_ingest.link_memories import LinkMemoriesHandler
from memhive_ports.poison import Poison

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save
from tests.integration.stack.test_mcp_tools import session, text

SWIFT_5 = "The iOS app targets Swift 5"
SWIFT_6 = "The iOS app now targets Swift 6"


async def save_new(client: httpx.AsyncClient, **fields) -> httpx.Response:
    """A save as an agent sends it: no force, so conflict detection applies."""
    return await client.post("/v1/memories?wait=indexed", json=fields)


async def recall(client: httpx.AsyncClient, query: str, **fields) -> list[dict]:
    response = await client.post("/v1/recall", json={"query": query, **fields})
    assert response.status_code == 200, response.text
    return response.json()["results"]


async def link(client: httpx.AsyncClient, src: str, dst: str, kind: str, **fields) -> dict:
    response = await client.post(
        "/v1/edges", json={"src_id": src, "dst_id": dst, "kind": kind, **fields}
    )
    assert response.status_code in (200, 201), response.text
    return response.json()


async def swift_pair(workspace: Workspace) -> tuple[str, str]:
    old = await save(workspace.member, kind="fact", body=SWIFT_5)
    new = await save_new(workspace.member, kind="fact", body=SWIFT_6, supersedes=[old["id"]])
    assert new.status_code == 201, new.text
    return old["id"], new.json()["id"]


async def test_supersedes_makes_recall_return_only_the_new_fact(workspace: Workspace) -> None:
    old, new = await swift_pair(workspace)

    assert await recall_ids(workspace.member, "which Swift version") == [new]


async def test_include_superseded_returns_the_old_fact_marked(workspace: Workspace) -> None:
    old, new = await swift_pair(workspace)

    results = {
        r["id"]: r
        for r in await recall(workspace.member, "which Swift version", include_superseded=True)
    }

    assert set(results) == {old, new}
    assert results[old]["superseded_by"] == new
    assert "superseded_by" not in results[new]


async def test_a_near_duplicate_save_is_refused_listing_the_old_fact(
    workspace: Workspace,
) -> None:
    old = await save(workspace.member, kind="fact", body=SWIFT_5)

    refused = await save_new(workspace.member, kind="fact", body=SWIFT_6)

    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert [s["id"] for s in body["similar"]] == [old["id"]]
    assert body["similar"][0]["similarity"] >= 0.85
    assert "supersedes" in body["detail"] and "force" in body["detail"]
    assert await recall_ids(workspace.member, "Swift version") == [old["id"]]


async def test_force_saves_a_near_duplicate_beside_the_old_one(workspace: Workspace) -> None:
    old = await save(workspace.member, kind="fact", body=SWIFT_5)

    forced = await save_new(workspace.member, kind="fact", body=SWIFT_6, force=True)

    assert forced.status_code == 201, forced.text
    assert set(await recall_ids(workspace.member, "Swift version")) == {
        old["id"],
        forced.json()["id"],
    }


async def test_a_near_duplicate_in_another_scope_is_no_conflict(workspace: Workspace) -> None:
    await save(workspace.member, kind="fact", body=SWIFT_5, product_id="ios")

    elsewhere = await save_new(workspace.member, kind="fact", body=SWIFT_6, product_id="watch")

    assert elsewhere.status_code == 201, elsewhere.text


async def test_an_exact_duplicate_returns_the_same_id(workspace: Workspace) -> None:
    first = await save(workspace.member, kind="fact", body=SWIFT_5)

    again = await save_new(workspace.member, kind="fact", body=f"  {SWIFT_5}\n", force=True)

    assert again.status_code == 200, again.text
    assert (again.json()["id"], again.json()["status"]) == (first["id"], "duplicate")
    assert await recall_ids(workspace.member, "Swift version") == [first["id"]]


async def test_a_successor_stands_in_for_a_stale_only_match(workspace: Workspace) -> None:
    old = await save(workspace.member, kind="fact", body="Deploys go through Jenkins pipelines")
    new = await save(
        workspace.member, kind="fact", body="Continuous delivery moved to GitHub Actions"
    )
    await link(workspace.member, new["id"], old["id"], "updates")

    results = await recall(workspace.member, "Jenkins pipelines", max_results=1)

    assert [(r["id"], r.get("replaces")) for r in results] == [(new["id"], [old["id"]])]


async def test_a_chain_resolves_to_its_head(workspace: Workspace) -> None:
    a = await save(workspace.member, kind="fact", body="The API gateway runs on nginx")
    b = await save(workspace.member, kind="fact", body="The API gateway was moved to Envoy")
    c = await save(workspace.member, kind="fact", body="Traefik now fronts every service")
    await link(workspace.member, b["id"], a["id"], "updates")
    await link(workspace.member, c["id"], b["id"], "updates")

    results = await recall(workspace.member, "API gateway nginx", max_results=3)

    assert [r["id"] for r in results] == [c["id"]]
    assert set(results[0]["replaces"]) >= {a["id"]}


async def test_a_contradiction_keeps_the_newer_memory(workspace: Workspace) -> None:
    older = await save(workspace.member, kind="fact", body="The office closes at 6pm on Fridays")
    newer = await save(workspace.member, kind="fact", body="The office closes at 4pm on Fridays")
    await link(workspace.member, older["id"], newer["id"], "contradicts")

    assert await recall_ids(workspace.member, "when does the office close on Friday") == [
        newer["id"]
    ]


async def test_forgetting_the_successor_brings_the_old_fact_back(workspace: Workspace) -> None:
    old, new = await swift_pair(workspace)

    forgotten = await workspace.member.delete(f"/v1/memories/{new}?wait=indexed")

    assert forgotten.status_code == 200, forgotten.text
    assert await recall_ids(workspace.member, "which Swift version") == [old]


async def test_linking_twice_changes_nothing(workspace: Workspace) -> None:
    a = await save(workspace.member, kind="fact", body="Billing runs on Stripe")
    b = await save(workspace.member, kind="fact", body="Invoices are emailed monthly")

    first = await link(workspace.member, a["id"], b["id"], "related_to", rationale="billing")
    second = await link(workspace.member, a["id"], b["id"], "related_to", rationale="billing")

    assert (first["status"], second["status"]) == ("created", "unchanged")
    assert second["edge"] == first["edge"]
    assert first["edge"] | {"created_at": None} == {
        "src_id": a["id"],
        "dst_id": b["id"],
        "kind": "related_to",
        "weight": 1.0,
        "created_by": "agent",
        "creator_kind": "agent",
        "rationale": "billing",
        "created_at": None,
    }


async def test_edges_are_listed_on_both_ends(workspace: Workspace) -> None:
    old, new = await swift_pair(workspace)

    listings = [
        (await workspace.member.get(f"/v1/memories/{m}/edges")).json()["edges"] for m in (old, new)
    ]

    assert listings[0] == listings[1]
    assert [(e["src_id"], e["dst_id"], e["kind"]) for e in listings[0]] == [(new, old, "updates")]


async def test_edges_to_a_forgotten_memory_are_left_out_of_the_listing(
    workspace: Workspace,
) -> None:
    old, new = await swift_pair(workspace)
    await workspace.member.delete(f"/v1/memories/{new}?wait=persisted")

    listed = await workspace.member.get(f"/v1/memories/{old}/edges")

    assert listed.status_code == 200
    assert listed.json()["edges"] == []


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"dst_id": "self"}, 422),
        ({"dst_id": str(uuid.uuid4())}, 404),
        ({"kind": "replaces"}, 422),
        ({"weight": 1.5}, 422),
        ({"weight": -0.1}, 422),
        ({"rationale": "x" * 501}, 422),
    ],
)
async def test_bad_edges_are_refused(workspace: Workspace, change: dict, status: int) -> None:
    a = await save(workspace.member, kind="fact", body="Backups run nightly at 2am")
    b = await save(workspace.member, kind="fact", body="Restores are tested every quarter")
    fields = {"src_id": a["id"], "dst_id": b["id"], "kind": "related_to"} | change
    if fields["dst_id"] == "self":
        fields["dst_id"] = a["id"]

    response = await workspace.member.post("/v1/edges", json=fields)

    assert response.status_code == status, response.text
    assert (await workspace.member.get(f"/v1/memories/{a['id']}/edges")).json()["edges"] == []


async def test_a_memory_of_another_workspace_cannot_be_linked(
    stack: Stack, workspace: Workspace
) -> None:
    mine = await save(workspace.member, kind="fact", body="Our Slack workspace is acme-eng")
    async with stack.client(await stack.token(f"ws-{uuid.uuid4().hex[:12]}")) as other:
        theirs = await save(other, kind="fact", body="Their Slack workspace is umbrella")

    response = await workspace.member.post(
        "/v1/edges", json={"src_id": mine["id"], "dst_id": theirs["id"], "kind": "updates"}
    )

    assert response.status_code == 404, response.text


async def test_a_reader_cannot_link(workspace: Workspace) -> None:
    old, new = await swift_pair(workspace)

    response = await workspace.reader.post(
        "/v1/edges", json={"src_id": old, "dst_id": new, "kind": "related_to"}
    )

    assert response.status_code == 403, response.text


async def test_supersedes_with_an_unknown_id_saves_nothing(workspace: Workspace) -> None:
    response = await save_new(
        workspace.member, kind="fact", body=SWIFT_6, supersedes=[str(uuid.uuid4())]
    )

    assert response.status_code == 404, response.text
    assert await recall_ids(workspace.member, "Swift version") == []


async def test_a_replayed_link_command_changes_nothing(stack: Stack, workspace: Workspace) -> None:
    # Not near-duplicates: the link classifier would link those meanwhile.
    old = (await save(workspace.member, kind="fact", body="Releases ship on Tuesdays"))["id"]
    new = (await save(workspace.member, kind="fact", body="The cafeteria closes at three"))["id"]
    command = edges_pb2.LinkMemories(
        command_id=str(uuid.uuid4()),
        workspace_id=workspace.id,
        edges=[edges_pb2.Edge(src_id=new, dst_id=old, kind=edges_pb2.EDGE_KIND_UPDATES)],
        requested_by="agent",
        requested_at=to_timestamp(datetime.now(UTC)),
    )
    published: list = []

    class Recorder:
        async def publish(self, subject: str, message, msg_id: str) -> None:
            published.append(message)

    await LinkMemoriesHandler(stack.infra.store, Recorder())(workspace.id, command)
    before = await stack.infra.store.get_many(workspace.id, [old, new])

    await LinkMemoriesHandler(stack.infra.store, Recorder())(workspace.id, command)

    after = await stack.infra.store.get_many(workspace.id, [old, new])
    assert after == before
    assert [len(before[m].edges) for m in (old, new)] == [1, 1]
    assert [len(event.edges) for event in published] == [1, 0]


async def test_link_memories_over_mcp(stack: Stack, workspace: Workspace, gateway_url: str) -> None:
    member = await stack.token(workspace.id)
    async with session(gateway_url, member) as agent:
        first = await agent.call_tool("save_memory", {"kind": "fact", "body": SWIFT_5})
        refused = await agent.call_tool("save_memory", {"kind": "fact", "body": SWIFT_6})
        forced = await agent.call_tool(
            "save_memory", {"kind": "fact", "body": SWIFT_6, "force": True}
        )
        old, new = first.structured_content["id"], forced.structured_content["id"]
        linked = await agent.call_tool(
            "link_memories", {"src_id": new, "dst_id": old, "kind": "updates"}
        )
        recalled = await agent.call_tool("recall_memory", {"query": "which Swift version"})

    assert refused.structured_content["status"] == "near_duplicate"
    assert old in text(refused)
    assert not linked.is_error, text(linked)
    assert linked.structured_content["status"] == "created"
    assert [r["id"] for r in recalled.structured_content["results"]] == [new]


async def test_a_bad_edge_is_poison_and_does_not_block_the_good_one(
    stack: Stack, workspace: Workspace
) -> None:
    old = (await save(workspace.member, kind="fact", body=SWIFT_5))["id"]
    new = (await save(workspace.member, kind="fact", body=SWIFT_6))["id"]
    command = edges_pb2.LinkMemories(
        command_id=str(uuid.uuid4()),
        workspace_id=workspace.id,
        edges=[
            edges_pb2.Edge(src_id=new, dst_id=new, kind=edges_pb2.EDGE_KIND_UPDATES),
            edges_pb2.Edge(src_id=new, dst_id=old, kind=edges_pb2.EDGE_KIND_UPDATES),
        ],
        requested_by="classifier",
        requested_at=to_timestamp(datetime.now(UTC)),
    )

    class Recorder:
        async def publish(self, subject: str, message, msg_id: str) -> None:
            published.append(message)

    published: list = []
    with pytest.raises(Poison, match="edge 0") as poison:
        await LinkMemoriesHandler(stack.infra.store, Recorder())(workspace.id, command)

    assert "no memory links itself" in poison.value.reason
    assert [(e.src_id, e.dst_id) for e in published[0].edges] == [(new, old)]
    assert await recall_ids(workspace.member, "which Swift version") == [new]
