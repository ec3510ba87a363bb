"""The record a save's gateway writes itself: a record left without its MemorySaved (a gateway
killed between the two writes) is announced by the next save of the same body, and becomes
recallable; the save's answer names it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memhive_domain.ids import content_id
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal

from tests.integration.stack.conftest import Stack, Workspace, recall_ids

BODY = "The billing export runs at 02:00 UTC and writes to the cold bucket"


async def test_a_record_left_unannounced_is_announced_by_the_next_identical_save(
    stack: Stack, workspace: Workspace
) -> None:
    principal = Principal(workspace.id, "agent")  # the member's token (conftest)
    memory = create_memory(
        MemoryDraft(kind="fact", body=BODY),
        memory_id="00000000-0000-0000-0000-000000000000",
        principal=principal,
        now=datetime.now(UTC),
    )
    slot = content_id(workspace.id, memory.scope_ref.key, memory.body, 0, memory.occurred_at)
    # What a gateway killed after its record's create leaves: the record, and no event.
    orphan = await stack.infra.store.create(replace(memory, id=slot), "cmd-killed")
    assert await recall_ids(workspace.member, "when does the billing export run?") == []

    response = await workspace.member.post(
        "/v1/memories?wait=indexed", json={"kind": "fact", "body": BODY}
    )
    assert response.status_code == 200, response.text
    assert (response.json()["status"], response.json()["id"]) == ("duplicate", slot)
    # Answered once indexed: recallable at once, as the first save would have been.
    assert await recall_ids(workspace.member, "when does the billing export run?") == [slot]
    stored = await stack.infra.store.get(workspace.id, slot)
    assert stored.memory.revision == 1 and stored.last_command_id == orphan.last_command_id
