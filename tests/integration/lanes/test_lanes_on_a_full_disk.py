"""The embedded lanes and a full disk: below the low-space watermark neither takes a write
(InsufficientStorage, which the consumer retries); tantivy on a disk that really is full
fails the write and takes the next ones once space is back."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from memhive_adapters.free_space import FreeSpace
from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_ports import InsufficientStorage

from tests.integration.lanes.memories import DIMENSIONS, a_memory, axis
from tests.tmpfs import MiB, empty, fill, small_tmpfs


class Disk:
    """A FreeSpace whose free bytes the test sets."""

    def __init__(self, free: int) -> None:
        self.free = free

    def space(self, path: Path, min_free: int = 64 * MiB) -> FreeSpace:
        return FreeSpace(path, min_free, measure=lambda _: self.free)


async def test_below_the_watermark_neither_lane_takes_a_write(tmp_path: Path) -> None:
    disk = Disk(free=1 * MiB)
    vector = EdgeVectorIndex(tmp_path / "edge", DIMENSIONS, space=disk.space(tmp_path))
    lexical = TantivyLexicalIndex(tmp_path / "tantivy", space=disk.space(tmp_path))
    for lane in (vector, lexical):
        await lane.ensure_ready()
    kept = a_memory("written before the disk filled")
    disk.free = 1 << 40
    await vector.upsert([(kept, axis(0))])
    await lexical.upsert([kept])

    disk.free = 1 * MiB
    refused = a_memory("refused while the disk is nearly full")
    with pytest.raises(InsufficientStorage, match="the vector lane took no write"):
        await vector.upsert([(refused, axis(1))])
    with pytest.raises(InsufficientStorage, match="the lexical lane took no write"):
        await lexical.upsert([refused])
    assert await vector.count() == await lexical.count() == 1  # reads go on

    disk.free = 1 << 40
    await vector.upsert([(refused, axis(1))])
    await lexical.upsert([refused])
    assert await vector.count() == await lexical.count() == 2
    for lane in (vector, lexical):
        await lane.close()


@pytest.mark.timeout(120)
async def test_tantivy_takes_writes_again_once_a_full_disk_has_room(tmp_path: Path) -> None:
    """A failed group commit is rolled back and tried again: tantivy's writer would otherwise
    drop every later commit without a word, even after space came back. The write that met
    the full disk is not dropped either."""
    with small_tmpfs(tmp_path / "disk", 16) as disk:
        lexical = TantivyLexicalIndex(disk / "tantivy", commit_interval_s=0.05)
        await lexical.ensure_ready()
        await lexical.upsert([a_memory("kept before the disk filled")])
        await lexical.persisted()
        fill(disk)
        await lexical.upsert([a_memory("met a full disk")])
        with pytest.raises(InsufficientStorage, match="the lexical lane could not write"):
            await lexical.persisted()
        empty(disk)
        await lexical.upsert([a_memory("written once space is back")])
        await asyncio.wait_for(lexical.persisted(), 30)
        await lexical.close()
        reopened = TantivyLexicalIndex(disk / "tantivy")
        assert await reopened.count() == 3  # on disk, not only in memory
        await reopened.close()
