"""Reindex over the running stack: the lanes are rebuilt from the record into a new
generation while recall keeps being served, then swapped; failures leave the old one."""

from __future__ import annotations

import argparse
import asyncio
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from memhive_adapters.nats.audit_log import JetStreamAuditLog
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_adapters.runtime.lane_builders import lexical_dir_of, vector_dir_of
from memhive_domain.audit import DEPLOYMENT, AuditAction, AuditQuery, Outcome
from memhive_domain.principals import Principal, Role
from memhive_embed.app import create_reindexer
from memhive_embed.reindex import Progress, Reindexer

from memhive_cli.operator import operator_trail
from memhive_cli.reindex import _do_reindex, reindex
from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

TOPICS = {
    "deploys": "Production deploys happen on Tuesdays after the change advisory board",
    "database": "The billing database is Postgres 16 with logical replication to analytics",
    "oncall": "The on-call rotation hands over every Monday at 10:00 Berlin time",
    "secrets": "Service secrets live in Vault under the kv-v2 mount, never in env files",
    "frontend": "The web frontend is a Svelte app built with Vite and served from a CDN",
}
QUERIES = {
    "deploys": "which day do production deploys happen",
    "database": "what database does billing use",
    "oncall": "when does the on-call rotation hand over",
    "secrets": "where are service secrets stored",
    "frontend": "what framework is the web frontend built with",
}


async def _save_topics(workspace: Workspace) -> dict[str, str]:
    return {k: (await save(workspace.member, kind="fact", body=b))["id"] for k, b in TOPICS.items()}


async def _recall_all(workspace: Workspace) -> dict[str, list[str]]:
    return {k: await recall_ids(workspace.member, q) for k, q in QUERIES.items()}


async def test_reindex_swaps_generations_while_recall_keeps_answering(
    stack: Stack, workspace: Workspace
) -> None:
    ids = await _save_topics(workspace)
    before = await _recall_all(workspace)
    assert {k: hits[0] for k, hits in before.items()} == ids
    generation = stack.infra.lane_set.current.spec.number
    old_dirs = [
        vector_dir_of(stack.infra.settings, generation),
        lexical_dir_of(stack.infra.settings, generation),
    ]
    job = asyncio.create_task(
        reindex(stack.infra.nats, embedding_model="all-MiniLM-L6-v2", stall_timeout_s=120)
    )
    during = 0
    while not job.done() or during == 0:
        for key, query in QUERIES.items():
            hits = await recall_ids(workspace.member, query)  # asserts 200
            assert hits[0] == ids[key]
            during += 1
    final = await job

    assert (final.state, final.generation) == ("done", generation + 1)
    assert final.embedding_model == "all-MiniLM-L6-v2" and final.done == final.total > 0
    assert stack.infra.lane_set.current.spec.number == generation + 1
    assert stack.infra.generations.current_spec().number == generation + 1
    assert not any(d.exists() for d in old_dirs)
    after = await _recall_all(workspace)
    assert {k: set(v) for k, v in after.items()} == {k: set(v) for k, v in before.items()}
    assert {k: hits[0] for k, hits in after.items()} == ids


async def test_writes_during_the_rebuild_reach_the_new_generation(
    stack: Stack, workspace: Workspace
) -> None:
    ids = await _save_topics(workspace)
    saved_during: list[str] = []

    async def report(progress: Progress) -> None:
        if not saved_during:  # the build has begun and is paused here: recall, then write
            assert stack.infra.lane_set.building is not None
            for key, query in QUERIES.items():
                assert (await recall_ids(workspace.member, query))[0] == ids[key]
            body = "The mobile team ships the iOS app through TestFlight every Thursday"
            saved_during.append((await save(workspace.member, kind="fact", body=body))["id"])
            response = await workspace.member.delete(f"/v1/memories/{ids['frontend']}?wait=indexed")
            assert response.status_code == 200

    await create_reindexer(stack.infra).rebuild(None, report)

    vector, lexical = await stack.infra.lanes()
    everything = [*ids.values(), *saved_during]
    expected = set(everything) - {ids["frontend"]}
    assert await vector.present(workspace.id, everything) == expected
    assert await lexical.present(workspace.id, everything) == expected
    hits = await recall_ids(workspace.member, "how does the iOS app ship")
    assert hits[0] == saved_during[0]


class FailingReplay:
    """The record, but the replay breaks after its first batch (a crash mid-reindex)."""

    def __init__(self, replay: RecordReplay) -> None:
        self._replay = replay

    async def batches(self, workspace_ids=(), after_sequence=None):
        async for batch in self._replay.batches(workspace_ids, after_sequence):
            yield batch
            raise ConnectionError("lost the record mid-replay")


class ReplayWithAWriteBehindIt:
    """The record, with a memory written once the replay has read it, that this process
    never sees as an event (as if another embed replica had indexed it into the old
    generation only)."""

    def __init__(self, replay: RecordReplay, write) -> None:
        self._replay, self._write = replay, write

    async def batches(self, workspace_ids=(), after_sequence=None):
        async for batch in self._replay.batches(workspace_ids, after_sequence):
            yield batch
        if after_sequence is None:  # the snapshot is read: too late for it
            await self._write()


async def test_records_written_during_the_rebuild_reach_the_new_generation(
    stack: Stack, workspace: Workspace
) -> None:
    ids = await _save_topics(workspace)
    infra = stack.infra
    template = (await infra.store.get(workspace.id, ids["deploys"])).memory
    behind = replace(template, id=str(uuid.uuid4()), body="Canary releases go to 5% first")

    async def write_behind() -> None:
        await infra.store.create(behind, f"cmd-{behind.id}")

    replay = ReplayWithAWriteBehindIt(RecordReplay(infra.js, batch=2), write_behind)
    reindexer = Reindexer(replay, infra.lane_set, infra.generations)

    async def report(progress: Progress) -> None:
        return None

    final = await reindexer.rebuild(None, report)

    assert final.state == "done"
    vector, lexical = await infra.lanes()
    assert await vector.present(workspace.id, [behind.id]) == {behind.id}
    assert await lexical.present(workspace.id, [behind.id]) == {behind.id}


async def test_a_failed_reindex_leaves_the_old_generation_serving_and_a_rerun_completes(
    stack: Stack, workspace: Workspace
) -> None:
    ids = await _save_topics(workspace)
    infra = stack.infra
    generation = infra.lane_set.current.spec.number
    broken = Reindexer(
        FailingReplay(RecordReplay(infra.js, batch=2)), infra.lane_set, infra.generations
    )

    async def report(progress: Progress) -> None:
        return None

    with pytest.raises(ConnectionError):
        await broken.rebuild(None, report)

    assert infra.lane_set.current.spec.number == generation
    assert infra.generations.current_spec().number == generation
    assert infra.lane_set.building is None
    assert not vector_dir_of(infra.settings, generation + 1).exists()
    assert not lexical_dir_of(infra.settings, generation + 1).exists()
    assert (await recall_ids(workspace.member, QUERIES["oncall"]))[0] == ids["oncall"]

    final = await reindex(infra.nats, stall_timeout_s=120)
    assert (final.state, final.generation) == ("done", generation + 1)
    assert (await recall_ids(workspace.member, QUERIES["oncall"]))[0] == ids["oncall"]


async def test_repairing_one_workspace_rewrites_it_in_place(
    stack: Stack, workspace: Workspace
) -> None:
    ids = await _save_topics(workspace)
    vector, lexical = await stack.infra.lanes()
    lost = [ids["deploys"], ids["secrets"]]
    await vector.delete(workspace.id, lost)  # lanes drifted from the record
    await lexical.delete(workspace.id, lost)
    generation = stack.infra.lane_set.current.spec.number

    final = await reindex(stack.infra.nats, [workspace.id], stall_timeout_s=120)

    assert (final.state, final.done, final.total) == ("done", 5, 5)
    assert final.generation == generation == stack.infra.lane_set.current.spec.number
    assert await vector.present(workspace.id, list(ids.values())) == set(ids.values())
    assert await lexical.present(workspace.id, list(ids.values())) == set(ids.values())


async def test_a_second_request_while_one_runs_is_refused(stack: Stack) -> None:
    """Both requests are audited as the deployment's (a full rebuild names no workspace)."""
    from memhive_cli.reindex import ReindexUnavailable

    trail, started = operator_trail(stack.infra.js), datetime.now(UTC)
    first = asyncio.create_task(reindex(stack.infra.nats, stall_timeout_s=120, trail=trail))
    await asyncio.sleep(0)  # let the first request go out before the second
    outcomes = await asyncio.gather(
        reindex(stack.infra.nats, stall_timeout_s=120, trail=trail), first, return_exceptions=True
    )
    refused = [o for o in outcomes if isinstance(o, ReindexUnavailable)]
    done = [o for o in outcomes if not isinstance(o, BaseException) and o.state == "done"]
    assert len(refused) == 1 and "already running" in str(refused[0]) and len(done) == 1

    query = AuditQuery(action=AuditAction.REINDEX, since=started)
    entries = (await JetStreamAuditLog(stack.infra.js).read(DEPLOYMENT, query)).entries
    assert sorted((e.outcome.value, e.user_id) for e in entries) == [
        ("failed", "cli"),
        ("ok", "cli"),
    ]
    assert {e.target for e in entries if e.outcome is Outcome.OK} == {done[0].job_id}


async def test_memhive_reindex_is_audited_in_the_workspace_it_repairs(
    stack: Stack, workspace: Workspace, bus_env: None, capsys
) -> None:
    await save(workspace.member, kind="fact", body=TOPICS["deploys"])
    args = argparse.Namespace(workspace=[workspace.id], embedding_model=None, stall_timeout=120)

    assert await _do_reindex(args) == 0

    assert "reindexed 1 memories" in capsys.readouterr().out
    admin = await stack.infra.tokens.issue(Principal(workspace.id, "root", Role.ADMIN))
    async with stack.client(admin) as client:
        answer = await client.get("/v1/admin/audit", params={"action": "reindex"})
    [entry] = answer.json()["items"]
    assert (entry["user"], entry["role"], entry["outcome"]) == ("cli", "admin", "ok")
    assert entry["credential"].startswith("cli:") and len(entry["target"]) == 32  # the job


async def test_an_unknown_local_model_fails_and_changes_nothing(stack: Stack) -> None:
    generation = stack.infra.lane_set.current.spec.number
    final = await reindex(stack.infra.nats, embedding_model="no-such-model", stall_timeout_s=60)
    assert final.state == "failed" and "no-such-model" in final.reason
    assert stack.infra.lane_set.current.spec.number == generation
