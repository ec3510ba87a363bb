"""current_entries does not end at nats-py's early "all delivered" marker.

nats-py puts its marker first when its consumer-info call answers after the server has
already sent every value (a busy machine): the snapshot must read on to the last value."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace

from memhive_adapters.nats.kv_watch import current_entries
from nats.js.kv import KV_DEL


@dataclass
class Entry:
    key: str
    value: bytes | None
    delta: int
    operation: str | None = None


@dataclass
class ScriptedWatcher:
    script: list[Entry | None]
    delivered: int
    stopped: bool = False
    _sub: SimpleNamespace = field(init=False)

    def __post_init__(self) -> None:
        info = SimpleNamespace(
            delivered=SimpleNamespace(consumer_seq=self.delivered), num_pending=0
        )

        async def consumer_info() -> SimpleNamespace:
            return info

        self._sub = SimpleNamespace(consumer_info=consumer_info)

    async def updates(self, timeout: float) -> Entry | None:  # noqa: ASYNC109 (nats-py's signature)
        await asyncio.sleep(0)
        return self.script.pop(0)

    async def stop(self) -> None:
        self.stopped = True


@dataclass
class ScriptedKv:
    watcher: ScriptedWatcher

    async def watch(self, keys: str) -> ScriptedWatcher:
        return self.watcher


async def test_an_early_marker_does_not_end_the_snapshot() -> None:
    watcher = ScriptedWatcher(
        [None, Entry("b", b"2", 2), Entry("a", b"1", 1), Entry("c", None, 0, KV_DEL)],
        delivered=3,
    )

    entries = await current_entries(ScriptedKv(watcher))  # type: ignore[arg-type]

    assert [(e.key, e.value) for e in entries] == [("a", b"1"), ("b", b"2")]
    assert watcher.stopped and watcher.script == []


async def test_a_marker_with_nothing_delivered_is_an_empty_bucket() -> None:
    watcher = ScriptedWatcher([None], delivered=0)

    assert await current_entries(ScriptedKv(watcher)) == []  # type: ignore[arg-type]
    assert watcher.stopped
