"""KV watches: a snapshot of the current entries, and an endless iterator of changes."""

from __future__ import annotations

from collections.abc import AsyncIterator

from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from memhive_adapters.nats.unavailable import unavailable_as_port_error

# The current entries come at once; waiting longer is a bus that does not answer.
SNAPSHOT_TIMEOUT_S = 2.0


async def current_entries(
    kv: KeyValue, keys: str = ">", timeout_s: float = SNAPSHOT_TIMEOUT_S
) -> list[KeyValue.Entry]:
    """The live entries under `keys` (deleted and purged keys left out), in key order.

    Not nats-py's "None once the initial values are delivered" marker: it decides "nothing
    pending" from consumer info that can arrive after the server has already sent every
    value, and then marks the end before the first value (seen as an empty token list on a
    busy CI machine). Instead the snapshot ends at the entry the server sent with nothing
    pending after it; deletes are read too, since the last entry may be one."""
    async with unavailable_as_port_error("the entries were not read"):
        return await _snapshot(kv, keys, timeout_s)


async def _snapshot(kv: KeyValue, keys: str, timeout_s: float) -> list[KeyValue.Entry]:
    watcher = await kv.watch(keys)
    live: dict[str, KeyValue.Entry] = {}
    try:
        while True:
            entry = await watcher.updates(timeout_s)
            if entry is None:
                if await _nothing_delivered(watcher):
                    break
                continue  # an early marker: the values are on their way
            if entry.operation in (KV_DEL, KV_PURGE):
                live.pop(entry.key, None)
            else:
                live[entry.key] = entry
            if entry.delta == 0:
                break
    finally:
        await watcher.stop()
    return [live[key] for key in sorted(live)]


async def _nothing_delivered(watcher: KeyValue.KeyWatcher) -> bool:
    info = await watcher._sub.consumer_info()  # nats-py exposes no public way to ask
    return info.delivered.consumer_seq == 0 and info.num_pending == 0


async def watch_entries(watcher: KeyValue.KeyWatcher) -> AsyncIterator[KeyValue.Entry | None]:
    """The current values, a None marker once they are all delivered, then every change;
    idle watches just keep waiting. The watcher is stopped when iteration ends."""
    try:
        # The watcher's own iteration, not `updates(timeout)`: that one waits through
        # asyncio.wait_for, which on Python 3.11 drops a cancellation arriving with an update
        # (a stopped watch then kept waiting for the next change).
        async for entry in watcher:
            yield entry
    finally:
        await watcher.stop()


async def changed_keys(watcher: KeyValue.KeyWatcher) -> AsyncIterator[str]:
    """The key of every change after the watch's replay of the current values."""
    replaying = True  # the watch first replays the current keys, then a None marker
    async for entry in watch_entries(watcher):
        if entry is None:
            replaying = False
        elif not replaying:
            yield entry.key
