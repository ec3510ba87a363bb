"""A rebuild's passes (reindex, encoder migration, lane upgrade): in chunks, and on the
backlog worker where the embedder has one, never in the callers' queue."""

from __future__ import annotations

from datetime import UTC, datetime

from memhive_adapters.runtime.lane_upgrade import EMBED_CHUNK, embed_in_chunks
from memhive_domain.memory import MemoryDraft, create_memory
from memhive_domain.principals import Principal

from tests.fakes import FakeEmbedder

NOW = datetime(2026, 1, 5, tzinfo=UTC)


class BacklogEmbedder(FakeEmbedder):
    """Notes each background call's texts."""

    def __init__(self) -> None:
        super().__init__()
        self.background_calls: list[list[str]] = []

    async def embed_in_background(self, texts):
        self.background_calls.append(list(texts))
        return [list(self.vector) for _ in texts]


def memories(count: int):
    principal = Principal("ws", "u1")
    return [
        create_memory(
            MemoryDraft(kind="fact", body=f"note {n}"),
            memory_id=f"m{n}",
            principal=principal,
            now=NOW,
        )
        for n in range(count)
    ]


async def test_a_rebuild_embeds_on_the_backlog_worker_in_chunks() -> None:
    embedder = BacklogEmbedder()
    vectors = await embed_in_chunks(embedder, memories(EMBED_CHUNK + 3))
    assert len(vectors) == EMBED_CHUNK + 3
    assert [len(call) for call in embedder.background_calls] == [EMBED_CHUNK, 3]
    assert embedder.texts == []  # nothing in the callers' queue


async def test_an_embedder_without_a_backlog_worker_is_called_as_usual() -> None:
    embedder = FakeEmbedder()
    await embed_in_chunks(embedder, memories(2))
    assert embedder.texts == ["note 0", "note 1"]
