"""The lane generation every process serves, as one key in a JetStream KV bucket.

The reindexing embed replica moves it once the new generation is complete; every process
that opens the lanes watches it and swaps to the generation it names (runtime/
generation_follower.py). The pointer only moves forward: a write that would take it back
(an old reindex finishing late) is refused by a compare-and-set on the key's revision.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

from memhive_contracts.streams import LANES_BUCKET
from memhive_domain.lane_generation import GenerationSpec, supersedes
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from memhive_adapters.nats.kv_watch import watch_entries

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 16


class KvGenerationPointer:
    """key: the lane set's name (LaneGenerations.pointer_key), so two installations sharing
    a bus with other collections keep pointers of their own."""

    def __init__(self, kv: KeyValue, key: str) -> None:
        self._kv, self._key = kv, key

    @classmethod
    async def open(cls, js: JetStreamContext, key: str) -> KvGenerationPointer:
        """Binds to the bucket that connection.ensure_streams declared."""
        return cls(await js.key_value(LANES_BUCKET), key)

    async def read(self) -> GenerationSpec | None:
        return (await self._read())[0]

    async def advance(self, spec: GenerationSpec) -> bool:
        """Point every process at `spec`; False when the pointer is already there or past."""
        for _ in range(MAX_ATTEMPTS):
            current, revision = await self._read()
            if current is not None and not supersedes(spec, current):
                return False
            try:
                if revision is None:
                    await self._kv.create(self._key, _encode(spec))
                else:
                    await self._kv.update(self._key, _encode(spec), last=revision)
                return True
            except KeyWrongLastSequenceError:
                continue
        raise RuntimeError(f"the lane generation pointer was contended {MAX_ATTEMPTS} times")

    async def changes(self) -> AsyncIterator[GenerationSpec]:
        """The current value (if any), then every new one; subscribed when this returns."""
        watcher = await self._kv.watch(self._key, ignore_deletes=True)
        return _specs(watcher)

    async def _read(self) -> tuple[GenerationSpec | None, int | None]:
        try:
            entry = await self._kv.get(self._key)
        except KeyNotFoundError:
            return None, None
        return _decode(entry.value), entry.revision


async def _specs(watcher: KeyValue.KeyWatcher) -> AsyncIterator[GenerationSpec]:
    async for entry in watch_entries(watcher):
        spec = None if entry is None else _decode(entry.value)  # None: initial values sent
        if spec is not None:
            yield spec


def _encode(spec: GenerationSpec) -> bytes:
    return json.dumps(spec.fields()).encode()


def _decode(value: bytes | None) -> GenerationSpec | None:
    """A value that cannot be read (written by hand) moves nobody: logged, not fatal."""
    try:
        data = json.loads(value or b"")
        return GenerationSpec.from_fields(data)
    except (ValueError, KeyError, TypeError):
        log.warning("the lane generation pointer holds %r: ignored", (value or b"")[:80])
        return None
