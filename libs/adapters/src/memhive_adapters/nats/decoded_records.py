"""Records this process already decoded, kept by key, so reading one again costs no decode.

Decoding a MemoryRecord into domain objects is most of a record read's CPU (a recall's ~30
candidates: 3.4 of 3.9 ms at 10k, half of it the edges; `docs/benchmarks.md`, issue 25).
An entry is used only for the same revision *and* the same bytes: a KV revision is a
stream sequence, never reused while the bucket lives, and the bytes check keeps a hit exact
even across a bucket deleted and declared again. The read itself always happens, so a
deleted or purged key still reads as absent; only the decode is saved.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from memhive.v1.memory_pb2 import MemoryRecord
from memhive_contracts.codec import decode
from memhive_contracts.edge_mapping import edge_from_pb
from memhive_contracts.mapping import memory_from_pb
from memhive_ports import StoredMemory

from memhive_adapters.nats.kv_latest import Latest


def stored_memory(value: bytes, revision: int) -> StoredMemory:
    """A MemoryRecord's bytes as the domain's StoredMemory."""
    record = decode(value, MemoryRecord)
    edges = tuple(edge_from_pb(e) for e in record.edges)
    return StoredMemory(memory_from_pb(record.memory), revision, record.last_command_id, edges)


class DecodedRecords:
    """At most `kept` decoded records, the least recently read dropped first (0: none).
    The services of one process (`memhive run`) share one: their reads overlap."""

    def __init__(
        self, kept: int, decode: Callable[[bytes, int], StoredMemory] = stored_memory
    ) -> None:
        self._kept, self._decode = kept, decode
        self._held: OrderedDict[str, tuple[bytes, StoredMemory]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._held)

    def stored(self, key: str, latest: Latest) -> StoredMemory:
        """The record `key` read as `latest`, decoded at most once while kept."""
        value, revision = latest.value, latest.revision
        held = self._held.get(key)
        if held is not None and held[1].revision == revision and held[0] == value:
            self._held.move_to_end(key)
            return held[1]
        stored = self._decode(value, revision)
        self._keep(key, value, stored)
        return stored

    def _keep(self, key: str, value: bytes, stored: StoredMemory) -> None:
        if self._kept <= 0:
            return
        self._held[key] = (value, stored)  # a newer revision takes the older one's place
        self._held.move_to_end(key)
        if len(self._held) > self._kept:
            self._held.popitem(last=False)
