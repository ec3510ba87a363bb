"""The link classifier on the real bus: the stack runs it with no LLM (the near-duplicate
fallback); a second instance per test talks to a loopback chat server that misbehaves."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

from memhive.v1 import edges_pb2
from memhive.v1.events_pb2 import MemoryIndexed
from memhive_contracts import streams, subjects
from memhive_contracts.codec import decode
from memhive_link_classifier.app import create_link_classifier
from memhive_settings import LinkClassifierSettings, LLMSettings
from nats.js import JetStreamContext

from tests.integration.llm.chat_server import LITELLM_WARNINGS, Reply, running_chat_server
from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save
from tests.unit.link_classifier.fakes import Metrics
from tests.waiting import until

# cosine 0.93 under all-MiniLM-L6-v2: above the save's conflict threshold (0.85), which the
# fallback links at
STAGING_DB = "Our staging database is Postgres 16 on port 5433"
STAGING_DB_AGAIN = "The staging database is Postgres 16, listening on port 5433"
UNRELATED = "Lunch is served on the fourth floor"
# Waiting for the bus, not a timing assertion: generous for a loaded 2-core machine.
BUS_WAIT_S = 60


@contextlib.asynccontextmanager
async def watching(js: JetStreamContext, subject: str) -> AsyncIterator[asyncio.Queue]:
    """Every message on `subject` from the start of its stream, as it arrives."""
    queue: asyncio.Queue = asyncio.Queue()
    sub = await js.subscribe(subject, deliver_policy="all", ordered_consumer=True, cb=queue.put)
    try:
        yield queue
    finally:
        await sub.unsubscribe()


async def next_where(queue: asyncio.Queue, matches) -> object:
    async def first():
        while not matches(msg := await queue.get()):
            pass
        return msg

    return await asyncio.wait_for(first(), BUS_WAIT_S)


async def _edges_once_linked(workspace: Workspace, memory_id: str) -> list[dict]:
    deadline = asyncio.get_running_loop().time() + BUS_WAIT_S
    while True:
        got = await workspace.member.get(f"/v1/memories/{memory_id}/edges")
        if got.json()["edges"] or asyncio.get_running_loop().time() > deadline:
            return got.json()["edges"]
        await asyncio.sleep(0.05)


def classifier_edges(msg) -> list[edges_pb2.Edge]:
    linked = decode(msg.data, edges_pb2.MemoriesLinked)
    return [e for e in linked.edges if e.creator_kind == edges_pb2.CREATOR_KIND_CLASSIFIER]


async def test_the_fallback_links_a_near_duplicate_as_related_to(
    stack: Stack, workspace: Workspace
) -> None:
    js = stack.infra.js
    commands = subjects.for_workspace(subjects.LINK_MEMORIES, workspace.id)
    linked = subjects.for_workspace(subjects.MEMORIES_LINKED, workspace.id)
    async with watching(js, commands) as proposed, watching(js, linked) as applied:
        first = await save(workspace.member, kind="fact", body=STAGING_DB)
        second = await save(workspace.member, kind="fact", body=STAGING_DB_AGAIN)
        await save(workspace.member, kind="fact", body=UNRELATED)

        command = decode((await next_where(proposed, lambda m: True)).data, edges_pb2.LinkMemories)
        await next_where(applied, classifier_edges)

    assert command.requested_by == "link-classifier"
    assert command.command_id.endswith(":link")
    [edge] = command.edges
    assert (edge.src_id, edge.dst_id, edge.kind) == (
        second["id"], first["id"], edges_pb2.EDGE_KIND_RELATED_TO,
    )  # fmt: skip
    assert edge.creator_kind == edges_pb2.CREATOR_KIND_CLASSIFIER
    assert 0.85 <= edge.weight <= 1.0
    listed = (await workspace.member.get(f"/v1/memories/{first['id']}/edges")).json()["edges"]
    assert [(e["src_id"], e["dst_id"], e["kind"], e["creator_kind"]) for e in listed] == [
        (second["id"], first["id"], "related_to", "classifier")
    ]
    assert "near-duplicate" in listed[0]["rationale"]


async def test_a_near_duplicate_saved_without_waiting_for_indexed_is_linked_not_refused(
    stack: Stack, workspace: Workspace
) -> None:
    """No encoder pass before `persisted`, so no 409: the near-duplicate is saved, and the
    classifier links it to the memory it duplicates, saying so."""
    linked = subjects.for_workspace(subjects.MEMORIES_LINKED, workspace.id)
    async with watching(stack.infra.js, linked) as applied:
        first = await save(workspace.member, kind="fact", body=STAGING_DB)
        answer = await workspace.member.post(
            "/v1/memories?wait=persisted", json={"kind": "fact", "body": STAGING_DB_AGAIN}
        )
        assert (answer.status_code, answer.json()["status"]) == (201, "persisted"), answer.text
        second = answer.json()["id"]
        [edge] = classifier_edges(await next_where(applied, classifier_edges))

    assert (edge.src_id, edge.dst_id, edge.kind) == (
        second, first["id"], edges_pb2.EDGE_KIND_RELATED_TO,
    )  # fmt: skip
    assert edge.rationale.startswith("near-duplicate text (cosine 0.9")
    assert edge.rationale.endswith(">= 0.85)")
    refused = await workspace.member.post(  # the default wait would have refused it
        "/v1/memories", json={"kind": "fact", "body": STAGING_DB_AGAIN + "."}
    )
    assert refused.status_code == 409, refused.text


@LITELLM_WARNINGS
async def test_malformed_llm_output_is_dead_lettered_and_the_memory_stays_recallable(
    stack: Stack, workspace: Workspace
) -> None:
    durable = f"link-classifier-{workspace.id}"
    async with running_chat_server(Reply("Memory 1 looks outdated to me.")) as llm:
        settings = stack.infra.settings.model_copy(
            update={
                "llm": LLMSettings(model="openai/stub", api_base=llm.url, api_key="sk-test"),
                "link_classifier": LinkClassifierSettings(max_deliveries=2),
            }
        )
        consumer = await create_link_classifier(
            stack.infra, settings=settings, durable=durable, workspace_id=workspace.id
        )
        await consumer.start()
        try:
            async with watching(stack.infra.js, subjects.dead_letter(durable)) as dead:
                old = await save(workspace.member, kind="fact", body="CI runs on Jenkins")
                new = await save(workspace.member, kind="fact", body="CI moved to GitHub Actions")
                letter = await next_where(dead, lambda m: True)
        finally:
            await consumer.stop()
            await stack.infra.js.delete_consumer(streams.LOG_STREAM, durable)

    reason = letter.headers[streams.DLQ_REASON_HEADER]
    assert "gave up after 2 deliveries: MalformedOutput: not JSON" in reason
    assert letter.headers[streams.DLQ_SUBJECT_HEADER].startswith(subjects.MEMORY_INDEXED)
    assert len(llm.requests) >= 2  # retried before giving up
    assert set(await recall_ids(workspace.member, "CI Jenkins GitHub Actions")) == {
        old["id"], new["id"],
    }  # fmt: skip


async def test_saves_the_gateway_checked_cost_the_classifier_no_search_and_a_forced_one_is_linked(
    stack: Stack, workspace: Workspace, monkeypatch
) -> None:
    """Saves waiting for `indexed` were searched for near-duplicates by the gateway: their
    MemoryIndexed says so, with what it found (a forced near-duplicate: the first memory),
    and a classifier that saw everything indexed since does not search the lane again; the
    forced one is linked all the same. (A classifier of this test's own, to read its
    counters; the clock skew it allows between gateway and classifier set to none, as both
    run on this machine's clock.)"""
    monkeypatch.setattr("memhive_link_classifier.recent.CLOCK_SKEW", timedelta(0))
    metrics, durable = Metrics.collecting(), f"link-classifier-{workspace.id}"
    consumer = await create_link_classifier(
        stack.infra, durable=durable, workspace_id=workspace.id, meter_provider=metrics.provider
    )
    await consumer.start()
    js, ws = stack.infra.js, workspace.id
    indexed = subjects.for_workspace(subjects.MEMORY_INDEXED, ws)
    try:
        async with watching(js, indexed) as events:
            first = await save(workspace.member, kind="fact", body=STAGING_DB, force=False)
            await save(workspace.member, kind="fact", body=UNRELATED, force=False)
            again = await save(workspace.member, kind="fact", body=STAGING_DB_AGAIN)  # forced
            announced = [decode((await next_where(events, bool)).data, MemoryIndexed)]
            announced += [decode((await next_where(events, bool)).data, MemoryIndexed)]
            announced += [decode((await next_where(events, bool)).data, MemoryIndexed)]
        await until(lambda: metrics.totals().get("edges_proposed"), BUS_WAIT_S)  # the last one
    finally:
        await consumer.stop()
        await js.delete_consumer(streams.LOG_STREAM, durable)

    checks = [e.near_duplicate_check if e.HasField("near_duplicate_check") else None
              for e in announced]  # fmt: skip
    assert checks == [0.85, 0.85, 0.85]
    assert [[n.memory_id for n in e.near_duplicates] for e in announced] == [[], [], [first["id"]]]
    assert metrics.totals()["searches_skipped"] == 3
    listed = await _edges_once_linked(workspace, first["id"])  # proposed, then applied by ingest
    assert [(e["src_id"], e["dst_id"], e["creator_kind"]) for e in listed] == [
        (again["id"], first["id"], "classifier")
    ]
