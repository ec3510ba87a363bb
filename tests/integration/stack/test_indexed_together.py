"""Memories of one workspace that embed indexes in one batch are announced in one
MemoriesIndexed: each save waiting for `indexed` is answered by its own memory's event in
it, and each memory is recallable (the bus, the real model, every service)."""

from __future__ import annotations

import asyncio

from memhive.v1 import events_pb2
from memhive_contracts import subjects

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

ROUNDS, AT_ONCE = 6, 16
TOPICS = ("billing", "search", "the mobile app", "the data warehouse")


def body(round_: int, n: int) -> str:
    return f"Round {round_}: ticket {n} about {TOPICS[n % len(TOPICS)]} moved to sprint {n + 3}"


async def test_saves_indexed_together_are_each_answered_and_recallable(
    stack: Stack, workspace: Workspace
) -> None:
    together: list[events_pb2.MemoriesIndexed] = []

    async def noted(msg) -> None:
        together.append(events_pb2.MemoriesIndexed.FromString(msg.data))

    subject = subjects.for_workspace(subjects.MEMORIES_INDEXED, workspace.id)
    subscription = await stack.infra.nats.subscribe(subject, cb=noted)
    saved: dict[str, str] = {}
    try:
        for round_ in range(ROUNDS):  # until embed has taken several of them in one batch
            bodies = [body(round_, n) for n in range(AT_ONCE)]
            answers = await asyncio.gather(
                *(save(workspace.member, kind="fact", body=b) for b in bodies)
            )  # each asserts its answer says "indexed"
            saved |= {a["id"]: b for a, b in zip(answers, bodies, strict=True)}
            if together:
                break
    finally:
        await subscription.unsubscribe()
    assert together, "embed never indexed two of them in one batch"
    ids = [event.memory.id for batch in together for event in batch.indexed]
    assert len(ids) >= 2 and set(ids) <= set(saved)
    for memory_id in ids:
        found = await recall_ids(workspace.member, saved[memory_id], max_results=3)
        assert memory_id in found
