"""Embedded lanes of an older layout are rebuilt from the record when a process opens them:
on a real nats-server of its own (the replay reads every record), with lanes written as the
first layout stored them (a tantivy schema without occurred_us, no pointer file)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import tantivy
from memhive_adapters.lane_conditions import LAYOUT, stored_fields
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.runtime.infrastructure import Infrastructure, open_infrastructure
from memhive_adapters.runtime.lane_generations import POINTER_FILE, GenerationSpec
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.time_range import TimeRange
from memhive_settings import MemhiveSettings, NatsSettings

from tests.integration.conftest import free_port
from tests.integration.lanes.memories import NOW, a_memory

pytestmark = pytest.mark.timeout(120)
DIMENSIONS = 384  # the configured model's: the new generation keeps its vectors
MODEL = "all-MiniLM-L6-v2"  # what lanes from before layouts were filled by


def one_hot(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(DIMENSIONS)]


@pytest.fixture
async def settings(tmp_path: Path) -> AsyncIterator[MemhiveSettings]:
    # Users of its own: the session's bus directory holds the shared server's pid file.
    bus_auth = EmbeddedBusAuth(tmp_path / "bus")
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(), config_file=bus_auth.ensure())
    async with server:
        yield MemhiveSettings(
            data_dir=tmp_path / "data",
            nats=NatsSettings(url=server.url, credentials_dir=bus_auth.directory),
        )


async def write_first_layout_lanes(settings: MemhiveSettings, live: list[Memory]) -> None:
    """What a release before layouts left on disk: vectors in qdrant-edge, and a tantivy
    index whose schema has no occurred_us (the current code cannot open it)."""
    vector = EdgeVectorIndex(settings.vector_dir, DIMENSIONS)
    await vector.upsert([(m, one_hot(i)) for i, m in enumerate(live)])
    await vector.close()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_integer_field("created_us", indexed=True, fast=True)
    settings.lexical_dir.mkdir(parents=True)
    index = tantivy.Index(builder.build(), path=str(settings.lexical_dir))
    writer = index.writer(15_000_000, 1)
    for memory in live:
        writer.add_document(tantivy.Document(id=memory.id, created_us=1))
    writer.commit()
    writer.wait_merging_threads()


async def test_a_first_layout_data_dir_is_rebuilt_before_it_serves(
    settings: MemhiveSettings,
) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    long_ago, recent = NOW - timedelta(days=400), NOW - timedelta(hours=1)
    then = a_memory("the harbour flooded", workspace_id=ws, occurred_at=long_ago)
    now = a_memory("the harbour reopened", workspace_id=ws, occurred_at=recent)
    gone = replace(a_memory("the harbour was sold", workspace_id=ws), forgotten=True)
    infra = await open_infrastructure(settings, name="upgrade-test")
    try:
        for memory in (then, now, gone):
            await infra.store.create(memory, f"cmd-{memory.id}")
        await write_first_layout_lanes(settings, [then, now])
        assert infra.generations.current_spec().layout == 1

        vector, lexical = await infra.lanes()

        assert infra.generations.current_spec() == GenerationSpec(1, MODEL, LAYOUT)
        assert not settings.lexical_dir.exists() and not settings.vector_dir.exists()
        # The vectors were copied, not computed again: MiniLM never answers a one-hot.
        assert await vector.vectors([then.id, now.id, gone.id]) == {
            then.id: one_hot(0),
            now.id: one_hot(1),
        }
        long_before = MemoryFilter(ws, occurred=TimeRange(before=NOW - timedelta(days=100)))
        assert [h.memory_id for h in await lexical.search("harbour", long_before, 10)] == [then.id]
        assert [h.memory_id for h in await vector.search(one_hot(1), long_before, 10)] == [then.id]
        assert await lexical.count(ws) == 2
    finally:
        await infra.close()

    again = await open_infrastructure(settings, name="upgrade-test-again")
    try:
        await again.lanes()
        assert again.generations.current_spec().number == 1  # nothing left to upgrade
    finally:
        await again.close()


async def test_a_fresh_data_dir_records_its_layout(settings: MemhiveSettings) -> None:
    infra: Infrastructure = await open_infrastructure(settings, name="upgrade-test")
    try:
        await infra.lanes()
        assert (settings.data_dir / POINTER_FILE).exists()
        configured = settings.embedding.model  # a fresh store's lanes are the configured encoder's
        assert infra.generations.current_spec() == GenerationSpec(0, configured, LAYOUT)
    finally:
        await infra.close()


def test_stored_fields_always_say_when_it_happened() -> None:
    saved = a_memory()
    said = a_memory(occurred_at=NOW - timedelta(days=3))
    assert stored_fields(saved)["occurred_at"] == stored_fields(saved)["created_at"]
    assert stored_fields(said)["occurred_at"] == (NOW - timedelta(days=3)).timestamp()
