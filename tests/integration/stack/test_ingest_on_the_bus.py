"""Ingest straight from the bus: replays are idempotent, poison is dead-lettered, nothing blocks."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import streams, subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.ids import uuid7

from tests.integration.stack.conftest import Stack, Workspace, recall_ids


def _save_command(
    workspace_id: str, body: str, kind: int = pb.MEMORY_KIND_FACT
) -> commands_pb2.SaveMemory:
    now = datetime.now(UTC)
    return commands_pb2.SaveMemory(
        command_id=str(uuid.uuid4()),
        memory=pb.Memory(id=uuid7(int(now.timestamp() * 1000)), kind=kind, body=body),
        requested_by="hook",
        requested_at=to_timestamp(now),
    )


async def _publish_raw(stack: Stack, workspace_id: str, payload: bytes, msg_id: str) -> None:
    subject = subjects.for_workspace(subjects.SAVE_MEMORY, workspace_id)
    await stack.infra.js.publish(subject, payload, headers={streams.MSG_ID_HEADER: msg_id})


async def _wait_for(predicate, attempts: int = 200):
    for _ in range(attempts):
        if result := await predicate():
            return result
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached")


async def test_a_replayed_save_command_makes_one_memory(stack: Stack, workspace: Workspace) -> None:
    command = _save_command(workspace.id, "Deploys are frozen during the last week of December")
    payload = command.SerializeToString()
    # Different message ids get past JetStream's duplicate window, as a replay from the log would.
    await _publish_raw(stack, workspace.id, payload, "first")
    await _publish_raw(stack, workspace.id, payload, "second")

    async def indexed():
        return await recall_ids(workspace.member, "deploy freeze December")

    assert await _wait_for(indexed) == [command.memory.id]
    stored = await stack.infra.store.get(workspace.id, command.memory.id)
    assert stored.memory.revision == 1 and stored.last_command_id == command.command_id


async def test_poison_commands_are_dead_lettered_and_do_not_block_the_next(
    stack: Stack, workspace: Workspace
) -> None:
    await _publish_raw(stack, workspace.id, b"\xff\xfe not protobuf", f"garbage-{workspace.id}")
    invalid = _save_command(workspace.id, "", kind=pb.MEMORY_KIND_UNSPECIFIED)
    await _publish_raw(stack, workspace.id, invalid.SerializeToString(), invalid.command_id)
    good = _save_command(workspace.id, "The design review happens every Thursday")
    await _publish_raw(stack, workspace.id, good.SerializeToString(), good.command_id)

    async def recalled():
        return await recall_ids(workspace.member, "design review Thursday")

    assert await _wait_for(recalled) == [good.memory.id]
    dead = await stack.infra.js.subscribe(
        subjects.dead_letter("ingest"), deliver_policy="all", ordered_consumer=True
    )
    reasons = []
    async for msg in dead.messages:
        if msg.subject and msg.headers.get(streams.DLQ_SUBJECT_HEADER, "").endswith(workspace.id):
            reasons.append(msg.headers[streams.DLQ_REASON_HEADER])
        if len(reasons) == 2:
            break
    await dead.unsubscribe()
    assert any("memhive.v1.SaveMemory" in r for r in reasons), reasons
    assert any("body" in r and "kind" in r for r in reasons), reasons


async def test_a_hooks_save_into_a_product_follows_the_products_visibility_as_it_changes(
    stack: Stack, workspace: Workspace
) -> None:
    """Ingest reads a product's record once and keeps it until the product changes (its
    watch on the products' bucket, as ingest's own bus user); 30 s if the watch failed."""

    async def saved_visibility(body: str) -> str:
        command = _save_command(workspace.id, body)
        command.memory.scope, command.memory.product_id = pb.SCOPE_PRODUCT, "kiln"
        await _publish_raw(stack, workspace.id, command.SerializeToString(), command.command_id)

        async def stored():
            return await stack.infra.store.get(workspace.id, command.memory.id)

        return (await _wait_for(stored)).memory.visibility.value

    for visibility in ("public", "private", "public"):
        answer = await workspace.member.put("/v1/products/kiln", json={"visibility": visibility})
        assert answer.status_code == 200, answer.text
        # The watch reports the change within moments: well before the entry's 30 s.
        loop = asyncio.get_running_loop()
        deadline, seen = loop.time() + 5, None
        while seen != visibility and loop.time() < deadline:
            seen = await saved_visibility(f"Kiln note while {visibility} ({uuid.uuid4()})")
        assert seen == visibility
