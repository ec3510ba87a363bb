"""Lane generations: which one is current, building the next, dropping the rest.

The pointer file (`<data_dir>/lanes.json`) names the current generation and the embedding
model its vectors came from. It is replaced atomically, and only once a new generation is
complete, so a process killed mid-reindex restarts on the old generation; `sweep()` then
removes the half-built one (and an old one a crash left behind after its swap). The same
pointer on the bus (nats/kv_generation_pointer.py), which every process follows, is learnt
with `learn()`; the newest of the two is current (a process of another machine has no file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from memhive_domain.lane_generation import GenerationSpec, newest
from memhive_ports import Embedder, LexicalIndex, VectorIndex
from memhive_settings import MemhiveSettings

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.lane_conditions import LAYOUT
from memhive_adapters.runtime.lane_builders import (
    FP32_MINILM,
    build_embedder,
    build_lexical_index,
    build_vector_index,
    lexical_dir_of,
    vector_dir_of,
)

POINTER_FILE = "lanes.json"
__all__ = ["GenerationSpec", "LaneGeneration", "LaneGenerations", "GenerationPointer"]


@dataclass
class LaneGeneration:
    """One complete set of lanes and the embedder whose vectors fill the vector lane."""

    spec: GenerationSpec
    embedder: Embedder
    vector: VectorIndex
    lexical: LexicalIndex

    async def open(self) -> None:
        await self.vector.ensure_ready()
        await self.lexical.ensure_ready()

    async def close(self) -> None:
        await self.vector.close()
        await self.lexical.close()

    async def drop(self) -> None:
        """Delete both lanes (collection, index, directories): no process may read them."""
        await self.vector.drop()
        await self.lexical.drop()


class GenerationPointer:
    def __init__(self, path: Path) -> None:
        self._path = path

    def read(self) -> GenerationSpec | None:
        if not self._path.exists():
            return None
        data = json.loads(self._path.read_text())
        return GenerationSpec.from_fields(data)

    def write(self, spec: GenerationSpec) -> None:
        """Atomic: a reader sees the old pointer or the new one, even across a crash."""
        self._path.parent.mkdir(parents=True, exist_ok=True)
        staged = self._path.with_suffix(".tmp")
        payload = spec.fields()
        with open(staged, "w") as f:
            json.dump(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(staged, self._path)
        _fsync_dir(self._path.parent)


class LaneGenerations:
    def __init__(self, settings: MemhiveSettings, space: FreeSpace | None = None) -> None:
        """`space`: the data dir's watermark, below which embedded lanes take no writes."""
        self._settings, self._space = settings, space
        self._pointer = GenerationPointer(settings.data_dir / POINTER_FILE)
        self._shared: GenerationSpec | None = None

    def current_spec(self) -> GenerationSpec:
        known = newest(self._pointer.read(), self._shared)
        if known is not None:
            return known
        # No pointer: embedded lanes already on disk date from before pointers recorded a
        # layout (the first); a fresh data dir, or server lanes, get this code's.
        on_disk = any(_holds_files(d) for d in self._local_dirs(0))
        layout = 1 if on_disk else LAYOUT
        # Lanes from before pointers (embedded ones on disk; server ones may be: only the
        # bus would say) were filled by the local encoder of the time, fp32 MiniLM: a store
        # configured for another migrates from it (an empty one in no time).
        legacy = on_disk or self.shared
        return GenerationSpec(0, self._legacy_encoder() if legacy else self.configured, layout)

    @property
    def configured(self) -> str:
        """The encoder settings ask for: every new generation's, and what a store built
        with another migrates to."""
        return self._settings.embedding.model

    def _legacy_encoder(self) -> str:
        local = self._settings.embedding.provider == "local"
        return FP32_MINILM if local else self._settings.embedding.model

    def record(self, spec: GenerationSpec) -> None:
        """Write the pointer file when there is none yet, so a later version knows which
        layout these lanes have (embedded lanes only: server lanes have the bus pointer)."""
        if not self.shared and self._pointer.read() is None:
            self._pointer.write(spec)

    def learn(self, shared: GenerationSpec | None) -> None:
        """What the pointer on the bus says (read at start, and on every change)."""
        self._shared = newest(self._shared, shared)

    @property
    def pointer_key(self) -> str:
        """The lane set's name on the bus: its collection and index (KV-safe)."""
        name = f"{self._settings.vector.collection}.{self._settings.lexical.index}"
        return re.sub(r"[^-_=a-zA-Z0-9.]", "_", name)

    @property
    def shared(self) -> bool:
        """Whether a lane lives on a server that other processes read too (Qdrant,
        OpenSearch): its old generation may only go once they have all moved on."""
        return (
            self._settings.vector.backend != "edge" or self._settings.lexical.backend != "tantivy"
        )

    def next_spec(self, embedding_model: str | None = None) -> GenerationSpec:
        current = self.current_spec()
        model = embedding_model or current.embedding_model
        return GenerationSpec(current.number + 1, model, LAYOUT)

    def build(self, spec: GenerationSpec, embedder: Embedder | None = None) -> LaneGeneration:
        """The generation's objects, not yet opened; `embedder` is reused when it fits."""
        if embedder is None or embedder.model_name != spec.embedding_model:
            embedder = build_embedder(self._settings, spec.embedding_model)
        vector = build_vector_index(self._settings, embedder, spec.number, self._space)
        lexical = build_lexical_index(self._settings, spec.number, self._space)
        return LaneGeneration(spec, embedder, vector, lexical)

    def commit(self, spec: GenerationSpec) -> None:
        self._pointer.write(spec)
        self.learn(spec)

    def discard(self, number: int) -> None:
        """Remove an embedded generation's files (closed first). Server collections and
        indexes of old generations are left for the operator to drop."""
        for path in self._local_dirs(number):
            shutil.rmtree(path, ignore_errors=True)

    def sweep(self) -> list[int]:
        """Drop every embedded generation but the current one; returns their numbers."""
        current = self.current_spec().number
        found = {n for base in self._local_bases() for n in _generations_beside(base)}
        doomed = sorted(found - {current})
        for number in doomed:
            self.discard(number)
        return doomed

    def _local_bases(self) -> list[Path]:
        bases = []
        if self._settings.vector.backend == "edge":
            bases.append(self._settings.vector_dir)
        if self._settings.lexical.backend == "tantivy":
            bases.append(self._settings.lexical_dir)
        return bases

    def _local_dirs(self, number: int) -> list[Path]:
        dirs = []
        if self._settings.vector.backend == "edge":
            dirs.append(vector_dir_of(self._settings, number))
        if self._settings.lexical.backend == "tantivy":
            dirs.append(lexical_dir_of(self._settings, number))
        return dirs


def _generations_beside(base: Path) -> set[int]:
    found = {0} if base.exists() else set()
    for path in base.parent.glob(f"{base.name}.gen-*"):
        suffix = path.name.rsplit("-", 1)[-1]
        if suffix.isdigit():
            found.add(int(suffix))
    return found


def _holds_files(path: Path) -> bool:
    return path.is_dir() and any(path.iterdir())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
