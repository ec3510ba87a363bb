"""The services of one process (`memhive run`) share the records they decoded."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from memhive_contracts.bus_permissions import QUERY
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal

from tests.integration.stack.conftest import Stack


async def test_a_record_one_service_decoded_is_not_decoded_again_by_another(
    stack: Stack,
) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    draft = MemoryDraft(kind="fact", body="the build uses uv")
    principal = Principal(workspace_id=workspace, user_id="ada")
    memory = create_memory(
        draft, memory_id=str(uuid.uuid4()), principal=principal, now=datetime.now(UTC)
    )
    await stack.infra.store.create(memory, "cmd-1")
    gateway = await stack.infra.connect_as(QUERY, name="memhive-tests-decoded")
    try:
        read = await stack.infra.store.get(workspace, memory.id)

        assert await gateway.store.get(workspace, memory.id) is read
    finally:
        await gateway.close()
