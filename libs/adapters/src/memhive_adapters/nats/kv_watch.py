"""A KV watch as an endless async iterator of its entries."""

from __future__ import annotations

from collections.abc import AsyncIterator

from nats.js.kv import KeyValue


async def watch_entries(watcher: KeyValue.KeyWatcher) -> AsyncIterator[KeyValue.Entry | None]:
    """The current values, a None marker once they are all delivered, then every change;
    idle watches just keep waiting. The watcher is stopped when iteration ends."""
    try:
        while True:
            try:
                yield await watcher.updates(timeout=3600)
            except TimeoutError:
                continue
    finally:
        await watcher.stop()
