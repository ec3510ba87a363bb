"""Distributed mode on a real NATS cluster, every service its own process: three clustered
nats-servers (JetStream, streams and KV at R3), two ingest replicas, the link classifier and
the bulletin service as `memhive serve` processes, and the gateway with the embed service in
one `memhive run` process (the embedded lanes allow one owning process, so embed and the
gateway share it). Under a burst of saves one NATS server and one ingest replica are killed
(SIGKILL); every acknowledged save must end up recallable, exactly once. The gateway records
saves itself, so ingest's commands are then forgets: the surviving ingest replica must apply
the forget of every save sent after the kill (its own ack count, read from its /metrics at
the kill and at the end, grows by at least that many), and those memories leave recall."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from memhive_client import AsyncMemhiveClient, RetryPolicy
from memhive_client.errors import Unavailable

from tests.e2e.cluster.processes import (
    NatsCluster,
    Process,
    declare_streams,
    memhive,
    wait_ready,
)

TOKEN = "cluster-test-token"
SAVES = 48
KILL_AFTER = 16
LATER = 16  # saves sent once the cluster takes saves again after the kill
CONCURRENCY = 6
pytestmark = pytest.mark.timeout(300)
INGEST_ACKS = re.compile(
    r'^memhive_consumer_messages_total\{[^}]*consumer="ingest"[^}]*outcome="ack"[^}]*\} (\S+)$',
    re.MULTILINE,
)


@dataclass
class Saves:
    """The test's saves through the gateway: which were acknowledged, and which were sent
    only after the kill (so could not have reached the killed ingest replica)."""

    client: httpx.AsyncClient
    tag: str
    killed: asyncio.Event
    acknowledged: dict[str, str] = field(default_factory=dict)  # body -> id
    sent_after_kill: set[str] = field(default_factory=set)
    sent: int = 0

    async def save(self) -> bool:
        i, self.sent = self.sent, self.sent + 1
        body = f"Cluster fact {i} about {self.tag}-{i:03d}: the deploy window is {i} minutes"
        if self.killed.is_set():
            self.sent_after_kill.add(body)
        try:
            response = await self.client.post(
                "/v1/memories", json={"kind": "fact", "body": body, "force": True}
            )
        except httpx.TransportError:
            return False
        if response.status_code not in (201, 202):
            return False
        self.acknowledged[body] = response.json()["id"]
        return True

    async def burst(self, count: int, on_answered=None) -> None:
        """`count` saves, CONCURRENCY at a time."""
        gate = asyncio.Semaphore(CONCURRENCY)
        answered = 0

        async def one() -> None:
            nonlocal answered
            async with gate:
                await self.save()
            answered += 1
            if on_answered is not None:
                on_answered(answered)

        await asyncio.gather(*(one() for _ in range(count)))

    async def until_accepted(self, timeout_s: float) -> None:
        """While the stream elects a new leader a save fails: one at a time until one is
        acknowledged again."""
        deadline = time.monotonic() + timeout_s
        while not await self.save():
            assert time.monotonic() < deadline, "no save was acknowledged after the kill"
            await asyncio.sleep(0.5)


async def _ingest_acks(replica: Process) -> int:
    """Messages of the durable `ingest` this replica acknowledged (its /metrics)."""
    async with httpx.AsyncClient(timeout=10) as client:
        text = (await client.get(f"http://127.0.0.1:{replica.http_port}/metrics")).text
    return sum(int(float(n)) for n in INGEST_ACKS.findall(text))


def _client(url: str, timeout_s: float) -> AsyncMemhiveClient:
    # No retries: a save is acknowledged by the answer to its one request, or not at all.
    return AsyncMemhiveClient(url, TOKEN, timeout_s=timeout_s, retry=RetryPolicy(attempts=1))


async def test_no_acknowledged_save_is_lost_when_a_nats_node_and_an_ingest_replica_die(
    tmp_path: Path,
) -> None:
    cluster = NatsCluster(tmp_path / "nats")
    processes: list[Process] = []
    try:
        cluster.start()
        await declare_streams(cluster.url, replicas=3)  # at R3
        env = {"MEMHIVE_NATS__URL": cluster.url, "MEMHIVE_NATS__REPLICAS": "3",
               "MEMHIVE_DEV_TOKEN": TOKEN, "MEMHIVE_QUERY__SAVE_WAIT_TIMEOUT_S": "20"}  # fmt: skip
        gateway = memhive("gateway", ["run"], tmp_path, env | {"MEMHIVE_RUN_SERVICES": '["embed"]'})
        ingest = [memhive(f"ingest-{i}", ["serve", "ingest"], tmp_path, env) for i in (1, 2)]
        others = [
            memhive(name, ["serve", name], tmp_path, env)
            for name in ("link_classifier", "bulletin")
        ]
        processes = [gateway, *ingest, *others]
        await asyncio.to_thread(wait_ready, processes, 180)
        url = f"http://127.0.0.1:{gateway.http_port}"
        tag = uuid.uuid4().hex[:8]
        survivor = ingest[1]
        reached, killed = asyncio.Event(), asyncio.Event()
        acks_at_kill: list[int] = []

        async def kill_when_reached() -> None:
            await reached.wait()
            cluster.nodes[1].kill()
            ingest[0].kill()
            # Read before `killed` is set: a save counted as sent after the kill cannot be
            # among these acks.
            acks_at_kill.append(await _ingest_acks(survivor))
            killed.set()

        def on_progress(answered: int) -> None:
            if answered == KILL_AFTER:
                reached.set()

        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            saves = Saves(client, tag, killed)
            killer = asyncio.create_task(kill_when_reached())
            await saves.burst(SAVES, on_progress)
            await killer
            await saves.until_accepted(timeout_s=60)
            await saves.burst(LATER)
        acknowledged = saves.acknowledged
        taken_over = set(acknowledged) & saves.sent_after_kill

        print(f"acknowledged {len(acknowledged)} of {saves.sent} saves")  # shown with pytest -s
        assert len(acknowledged) >= SAVES // 4, "saves go on being acknowledged"
        assert len(taken_over) > LATER // 2, "the cluster takes saves again after the kill"
        async with _client(url, timeout_s=30) as client:
            deadline = time.monotonic() + 90
            while True:
                listed = [m async for m in client.iter_memories(page_size=100) if tag in m.body]
                missing = set(acknowledged.values()) - {m.id for m in listed}
                if not missing:
                    break
                assert time.monotonic() < deadline, (
                    f"{len(missing)} acknowledged saves never became listable\n"
                    + "\n".join(p.tail() for p in processes)
                )
                await asyncio.sleep(0.5)
            bodies = [m.body for m in listed]
            assert len(bodies) == len(set(bodies)), "a save was applied twice"
            for body, memory_id in acknowledged.items():
                token = re.search(rf"{tag}-\d+", body).group(0)
                hits = [hit.id for hit in await _recall_when_available(client, token)]
                assert hits.count(memory_id) == 1, (body, hits)
        # The saves sent after the kill are forgotten: commands only the ingest replica left
        # can apply. Its own count of `ingest` acks grows by at least that many since the
        # kill (polled: a forget is answered a moment before its command is acknowledged).
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            for body in taken_over:
                gone = await _when_available(
                    lambda body=body: client.delete(
                        f"/v1/memories/{acknowledged[body]}?wait=persisted"
                    )
                )
                assert gone.status_code == 200, gone.text
        deadline = time.monotonic() + 30
        while (acks_after := await _ingest_acks(survivor)) - acks_at_kill[0] < len(taken_over):
            assert time.monotonic() < deadline, (acks_at_kill, acks_after, len(taken_over))
            await asyncio.sleep(0.5)
        async with _client(url, timeout_s=30) as client:
            for body in taken_over:
                token = re.search(rf"{tag}-\d+", body).group(0)
                hits = [hit.id for hit in await _recall_when_available(client, token)]
                assert acknowledged[body] not in hits, (body, hits)
        print(f"survivor acks: {acks_at_kill[0]} at the kill, {acks_after} after; "
              f"{len(taken_over)} memories saved and forgotten after the kill")  # fmt: skip
    finally:
        for process in processes:
            process.stop()
        cluster.stop()


async def _when_available(send, within_s: float = 30) -> httpx.Response:
    """A request, sent again while the bus answers 503 with Retry-After (a stream's or
    JetStream's leader still settling after a node died): nothing was done, as promised."""
    deadline = time.monotonic() + within_s
    while True:
        answer = await send()
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        assert "Retry-After" in answer.headers, answer.text
        await asyncio.sleep(0.5)


async def _recall_when_available(client: AsyncMemhiveClient, text: str, within_s: float = 30):
    """A recall, asked again while the bus answers 503: after a node dies, a stream's new
    leader may still be settling, and "JetStream is unavailable" is the promised answer
    then (a clear 503, not a lost save)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            return await client.recall(text, max_results=5)
        except Unavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)
