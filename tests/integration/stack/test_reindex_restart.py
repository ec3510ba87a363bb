"""Reindex across restarts of the process that owns the lanes: lanes wiped from disk are
rebuilt from the record, and a reindex killed half-way is rolled back on the next start.

Each test opens its own Infrastructure on a fresh data dir against the stack's bus and
record, as a second `memhive run` would after a restart."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from memhive_adapters.runtime.infrastructure import Infrastructure, open_infrastructure
from memhive_adapters.runtime.lane_builders import lexical_dir_of, vector_dir_of
from memhive_embed.app import create_reindexer
from memhive_embed.reindex import Progress
from memhive_settings import MemhiveSettings

from tests.integration.stack.conftest import Stack, Workspace, save

BODIES = [
    "Release notes are drafted by the tech lead on the Friday before a release",
    "The search service caches query embeddings for ten minutes",
    "Customer exports are written to S3 as gzipped newline-delimited JSON",
]


async def _ignore(progress: Progress) -> None:
    return None


@asynccontextmanager
async def _process(stack: Stack, data_dir: Path) -> AsyncIterator[Infrastructure]:
    nats = stack.infra.settings.nats.model_dump(include={"url", "credentials_dir"})
    settings = MemhiveSettings(data_dir=data_dir, nats=nats)
    infra = await open_infrastructure(settings, name="memhive-restart-test")
    try:
        await infra.lanes()
        yield infra
    finally:
        await infra.close()


async def _held(infra: Infrastructure, workspace_id: str, ids: list[str]) -> tuple[set, set]:
    vector, lexical = await infra.lanes()
    return await vector.present(workspace_id, ids), await lexical.present(workspace_id, ids)


async def _saved(workspace: Workspace) -> list[str]:
    return [(await save(workspace.member, kind="fact", body=b))["id"] for b in BODIES]


def _lane_dirs(data_dir: Path) -> Callable[[], list[Path]]:
    return lambda: sorted(p for p in data_dir.iterdir() if p.name.startswith(("qdrant", "tantivy")))


async def test_lanes_wiped_from_disk_are_rebuilt_from_the_record(
    stack: Stack, workspace: Workspace, tmp_path: Path
) -> None:
    ids = await _saved(workspace)
    async with _process(stack, tmp_path) as infra:
        assert await _held(infra, workspace.id, ids) == (set(), set())  # a fresh data dir
        await create_reindexer(infra).rebuild(None, _ignore)
        assert await _held(infra, workspace.id, ids) == (set(ids), set(ids))
    for path in _lane_dirs(tmp_path)():
        shutil.rmtree(path)

    async with _process(stack, tmp_path) as infra:
        assert await _held(infra, workspace.id, ids) == (set(), set())
        final = await create_reindexer(infra).rebuild(None, _ignore)
        assert final.generation == 2 and final.done == final.total >= len(ids)
        assert await _held(infra, workspace.id, ids) == (set(ids), set(ids))
    assert [p.name for p in _lane_dirs(tmp_path)()] == ["qdrant-edge.gen-2", "tantivy.gen-2"]


async def test_a_reindex_killed_half_way_is_rolled_back_on_the_next_start(
    stack: Stack, workspace: Workspace, tmp_path: Path
) -> None:
    ids = await _saved(workspace)
    async with _process(stack, tmp_path) as infra:
        await create_reindexer(infra).rebuild(None, _ignore)  # generation 1 serves
        # The next generation is half written when the process dies: nothing cleans up,
        # and the pointer never moved.
        half = infra.generations.build(
            infra.generations.next_spec(), infra.lane_set.current.embedder
        )
        await half.open()
        memory = (await infra.store.get(workspace.id, ids[0])).memory
        await half.lexical.upsert([memory])
        await half.close()
    settings = infra.settings
    assert vector_dir_of(settings, 2).exists() and lexical_dir_of(settings, 2).exists()

    async with _process(stack, tmp_path) as infra:
        assert infra.lane_set.current.spec.number == 1
        assert not vector_dir_of(settings, 2).exists() and not lexical_dir_of(settings, 2).exists()
        assert await _held(infra, workspace.id, ids) == (set(ids), set(ids))
        final = await create_reindexer(infra).rebuild(None, _ignore)
        assert final.generation == 2
        assert await _held(infra, workspace.id, ids) == (set(ids), set(ids))
