"""Where a qdrant-edge lane keeps its shard, so an optimised copy can replace it.

A lane directory holds its shard in a numbered subdirectory (`shard-0`, `shard-1`, ...)
named by the file `active`; a lane written before there were copies holds the shard in the
directory itself, and its first copy moves it into `shard-1`. The pointer is replaced
atomically (write, fsync, rename) once the copy is complete, so a crash leaves either the
old shard or the new one active, never a half; whatever else is left is removed on open.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

POINTER = "active"
_PREFIX = "shard-"
# What qdrant-edge writes into a shard directory (the layout before copies existed).
_SHARD_FILES = ("edge_config.json", "segments", "temp_segments", "wal", "snapshots")


def active_shard(lane: Path) -> Path:
    """The shard directory in use: named by the pointer, the lane itself for a lane of the
    older layout, or `shard-0` (named at once) for a new lane."""
    pointer = lane / POINTER
    if pointer.exists():
        return lane / pointer.read_text().strip()
    if _holds_a_shard(lane):
        return lane
    lane.mkdir(parents=True, exist_ok=True)
    point_at(lane, lane / f"{_PREFIX}0")
    return lane / f"{_PREFIX}0"


def next_shard(lane: Path) -> Path:
    """A fresh directory name for the next copy (higher than any present)."""
    numbers = [int(p.name[len(_PREFIX) :]) for p in copies(lane)]
    return lane / f"{_PREFIX}{max(numbers, default=0) + 1}"


def copy_shard(source: Path, target: Path) -> None:
    """A flushed shard's files, copied to `target` (the lane's other copies excluded)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in _SHARD_FILES:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name)
        elif (source / name).exists():
            shutil.copy2(source / name, target / name)


def point_at(lane: Path, shard: Path) -> None:
    temporary = lane / f"{POINTER}.tmp"
    with open(temporary, "w") as out:
        out.write(shard.name)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, lane / POINTER)


def remove_unused(lane: Path) -> None:
    """Every copy but the active one, the older layout's files once a copy is active, and
    what a build's journal spilled to disk (never needed once no build runs)."""
    active = active_shard(lane)
    for copy in copies(lane):
        if copy != active:
            shutil.rmtree(copy, ignore_errors=True)
    if active != lane:
        for name in _SHARD_FILES:
            target = lane / name
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()
    (lane / f"{POINTER}.tmp").unlink(missing_ok=True)
    for spilled in lane.glob(f"{_PREFIX}*.journal.*"):  # a build's journal on disk
        spilled.unlink(missing_ok=True)


def copies(lane: Path) -> list[Path]:
    """The lane's numbered shard directories: more than one while a build is under way."""
    if not lane.is_dir():
        return []
    return [p for p in lane.iterdir() if p.is_dir() and p.name.startswith(_PREFIX)]


def _holds_a_shard(lane: Path) -> bool:
    return (lane / "edge_config.json").exists() or (lane / "segments").is_dir()
