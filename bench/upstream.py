"""Upstream events ingested end to end: published by a hook with nats-py -> recallable.

Throughput: a burst of issue, comment and job events published as fast as JetStream
acknowledges them; the clock stops when the last memory they make is announced as indexed
(MemoryIndexed: searchable in both lanes), then one recall confirms it. Latency: single
issue events, one at a time, from publish to their MemoryIndexed.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from datetime import UTC, datetime

from memhive.v1 import events_pb2
from memhive.v1 import upstream_pb2 as pb
from memhive_contracts import subjects
from memhive_domain.upstream import upstream_memory_id
from memhive_settings import MemhiveSettings

from bench.running_stack import RunningStack

BURST_EVENTS = 1000
SINGLE_EVENTS = 30
PUBLISH_CONCURRENCY = 64


def _issue(ws: str, tag: str, n: int) -> tuple[str, pb.IssueCreated]:
    event = pb.IssueCreated(
        event_id=f"{tag}-issue-{n}",
        workspace_id=ws,
        issue_id=f"{tag}-{n}",
        title=f"Checkout step {n} times out when the {tag} cache is cold",
        description=f"The payment call for cart {n} exceeds its budget under load.",
        status="open",
        labels=["bug"],
        product_id="shop",
        author="jane",
    )
    return subjects.ISSUE_CREATED, event


def _comment(ws: str, tag: str, n: int) -> tuple[str, pb.CommentCreated]:
    event = pb.CommentCreated(
        event_id=f"{tag}-comment-{n}",
        workspace_id=ws,
        comment_id=f"{tag}-c-{n}",
        issue_id=f"{tag}-{n // 3}",
        body=f"Reproduced with {n} concurrent users on staging; the pool is exhausted.",
        author="sam",
        product_id="shop",
    )
    return subjects.COMMENT_CREATED, event


def _job(ws: str, tag: str, n: int) -> tuple[str, pb.JobCompleted]:
    session = pb.SessionContext(
        decisions=[f"Retry payment call {n} with jittered backoff"],
        resolved_errors=[pb.ResolvedError(error=f"TimeoutError in job {n}", resolution="retry")],
        files_modified=[f"shop/checkout_{n}.py"],
    )
    event = pb.JobCompleted(
        event_id=f"{tag}-job-{n}",
        workspace_id=ws,
        job_id=f"{tag}-J-{n}",
        outcome=pb.JOB_OUTCOME_SUCCEEDED,
        stdout_excerpt=f"{n} passed",
        session=session,
        author="agent",
    )
    return subjects.JOB_COMPLETED, event


MAKERS = ((_issue, 1), (_comment, 1), (_job, 3))  # (builder, memories each event makes)


def burst(ws: str, tag: str, count: int) -> tuple[list[tuple[str, object]], int]:
    events, memories = [], 0
    for n in range(count):
        make, made = MAKERS[n % len(MAKERS)]
        prefix, event = make(ws, tag, n)
        event.occurred_at.FromDatetime(datetime.now(UTC))
        events.append((subjects.for_workspace(prefix, ws), event))
        memories += made
    return events, memories


class IndexedWatch:
    """Counts MemoryIndexed (or MemorySaved) announcements by memory id, as they happen;
    a MemoriesIndexed counts each memory it holds."""

    def __init__(self, message_type=events_pb2.MemoryIndexed) -> None:
        self.seen: dict[str, float] = {}
        self.changed = asyncio.Event()
        self._type = message_type

    async def on_message(self, msg) -> None:
        if msg.subject.startswith(f"{subjects.MEMORIES_INDEXED}."):
            events = events_pb2.MemoriesIndexed.FromString(msg.data).indexed
        else:
            events = [self._type.FromString(msg.data)]
        now = time.perf_counter()
        for event in events:
            self.seen.setdefault(event.memory.id, now)
        self.changed.set()

    async def until(self, predicate, timeout_s: float = 900) -> None:
        async with asyncio.timeout(timeout_s):
            while not predicate():
                self.changed.clear()
                await self.changed.wait()


async def _publish_all(js, events) -> None:
    gate = asyncio.Semaphore(PUBLISH_CONCURRENCY)

    async def one(subject: str, event) -> None:
        async with gate:
            await js.publish(
                subject, event.SerializeToString(), headers={"Nats-Msg-Id": event.event_id}
            )

    await asyncio.gather(*(one(s, e) for s, e in events))


async def _throughput(js, watch: IndexedWatch, saved: IndexedWatch, ws: str) -> dict:
    tag = uuid.uuid4().hex[:8]
    events, memories = burst(ws, tag, BURST_EVENTS)
    before = len(watch.seen)
    began = time.perf_counter()
    await _publish_all(js, events)
    published = time.perf_counter() - began
    await watch.until(lambda: len(watch.seen) - before >= memories)
    elapsed = time.perf_counter() - began
    recorded = sorted(saved.seen.values())[before + memories - 1] - began
    return {
        "events": len(events),
        "memories": memories,
        "publish_s": published,
        "recorded_s": recorded,
        "elapsed_s": elapsed,
        "events_per_s": len(events) / elapsed,
        "memories_per_s": memories / elapsed,
        "tag": tag,
    }


async def _latency(js, watch: IndexedWatch, ws: str) -> list[float]:
    samples = []
    for n in range(SINGLE_EVENTS):
        subject, event = _issue(ws, f"single{uuid.uuid4().hex[:8]}", n)
        event.occurred_at.FromDatetime(datetime.now(UTC))
        before = len(watch.seen)
        began = time.perf_counter()
        await js.publish(subjects.for_workspace(subject, ws), event.SerializeToString())
        await watch.until(lambda before=before: len(watch.seen) > before, timeout_s=60)
        samples.append((time.perf_counter() - began) * 1000)
    return samples


async def _recallable(stack: RunningStack, ws: str, tag: str) -> bool:
    """The burst's last job decision comes back from a recall for its words."""
    n = max(n for n in range(BURST_EVENTS) if MAKERS[n % len(MAKERS)][0] is _job)
    wanted = upstream_memory_id(ws, f"job:{tag}-J-{n}:decision:1")
    async with stack.client() as client:
        query = f"Retry payment call {n} with jittered backoff"
        return wanted in [hit.id for hit in await client.recall(query, max_results=20)]


async def run(stack: RunningStack) -> str:
    ws = MemhiveSettings().dev_workspace  # the workspace of the stack's dev token
    nc = await stack.bus()
    watch, saved = IndexedWatch(), IndexedWatch(events_pb2.MemorySaved)
    subs = [
        await nc.subscribe(subjects.for_workspace(subject, ws), cb=w.on_message)
        for subject, w in (
            (subjects.MEMORY_INDEXED, watch),
            (subjects.MEMORIES_INDEXED, watch),
            (subjects.MEMORY_SAVED, saved),
        )
    ]
    try:
        js = nc.jetstream()
        result = await _throughput(js, watch, saved, ws)
        result["recall_ok"] = await _recallable(stack, ws, result["tag"])
        latency = await _latency(js, watch, ws)
    finally:
        for sub in subs:
            await sub.unsubscribe()
        await nc.close()
    return render(result, latency)


def render(result: dict, latency_ms: list[float]) -> str:
    ordered = sorted(latency_ms)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return "\n".join(
        [
            "| events (issue / comment / job) | memories made | publish (s) | published → all in the record (s) | published → all indexed (s) | events/s | memories/s | one event → indexed p50 / p95 (ms) |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {result['events']} | {result['memories']} | {result['publish_s']:.1f} "
            f"| {result['recorded_s']:.1f} "
            f"| {result['elapsed_s']:.1f} | {result['events_per_s']:.0f} "
            f"| {result['memories_per_s']:.0f} "
            f"| {statistics.median(ordered):.0f} / {p95:.0f} |",
            "",
            f"The last job of the burst was recallable through `/v1/recall` right after: "
            f"{'yes' if result['recall_ok'] else 'NO'}. Jobs make 3 memories (a decision, a "
            "resolved error, the job summary); issues and comments one each.",
        ]
    )


if __name__ == "__main__":
    from bench.running_stack import running_stack

    with running_stack({"MEMHIVE_RUN_SERVICES": '["ingest","embed"]'}) as running:
        print(asyncio.run(run(running)))
