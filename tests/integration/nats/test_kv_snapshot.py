"""current_entries against a real nats-server: live keys only, whatever the last write was."""

from __future__ import annotations

import uuid

from memhive_adapters.nats.kv_watch import current_entries
from nats.js import JetStreamContext


async def test_a_snapshot_holds_the_live_keys_even_when_the_last_write_is_a_delete(
    js: JetStreamContext,
) -> None:
    kv = await js.create_key_value(bucket=f"snap-{uuid.uuid4().hex[:8]}", history=3)
    assert await current_entries(kv) == []

    await kv.put("a", b"1")
    await kv.put("b", b"2")
    await kv.put("a", b"3")
    await kv.put("c", b"4")
    await kv.delete("c")

    assert [(e.key, e.value) for e in await current_entries(kv)] == [("a", b"3"), ("b", b"2")]
    assert await current_entries(kv, "nothing.*") == []
