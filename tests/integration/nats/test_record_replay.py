"""RecordReplay over the real KV bucket: a slow caller whose throwaway consumer the server
already dropped (inactive past its threshold) still finishes the replay cleanly."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from memhive_adapters.nats.kv_memory_store import KvMemoryStore
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal
from nats.aio.client import Client
from nats.js import JetStreamContext

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


async def test_a_consumer_dropped_by_the_server_ends_the_replay_without_error(
    js: JetStreamContext, nats_client: Client
) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    store = await KvMemoryStore.open(nats_client)
    principal = Principal(workspace_id=workspace, user_id="ada")
    draft = MemoryDraft(kind="fact", body="the build uses uv")
    memory = create_memory(draft, memory_id=str(uuid.uuid4()), principal=principal, now=NOW)
    await store.create(memory, "cmd-1")

    batches = []
    async for batch in RecordReplay(js).batches([workspace]):
        batches.append(batch)
        # As the server does once the caller spent longer than the inactive threshold.
        stream = "KV_memhive_memories"
        for info in await js.consumers_info(stream):
            if info.name.startswith("replay-"):
                await js.delete_consumer(stream, info.name)

    assert [[m.id for m in b.memories] for b in batches] == [[memory.id]]
