"""Direct gets are declared on a KV bucket only where a direct get is the leader's read:
one replica. A replicated bucket (a cluster) has them turned off, so no follower answers."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from memhive_adapters.nats.connection import allow_direct_reads
from nats.js.api import StreamConfig, StreamInfo, StreamState


@dataclass
class FakeJetStream:
    config: StreamConfig
    updates: list[StreamConfig] = field(default_factory=list)

    async def stream_info(self, name: str) -> StreamInfo:
        assert name == f"KV_{BUCKET}"
        return StreamInfo(config=self.config, state=StreamState(0, 0, 0, 0, 0))

    async def update_stream(self, config: StreamConfig) -> None:
        self.updates.append(config)


BUCKET = "memhive_memories"


@pytest.mark.parametrize(
    ("replicas", "direct", "wanted"),
    [(1, None, True), (1, False, True), (3, True, False), (1, True, None), (3, None, None)],
)
async def test_direct_gets_follow_the_replica_count(
    replicas: int, direct: bool | None, wanted: bool | None
) -> None:
    js = FakeJetStream(
        StreamConfig(name=f"KV_{BUCKET}", num_replicas=replicas, allow_direct=direct)
    )
    await allow_direct_reads(js, BUCKET)  # type: ignore[arg-type]
    assert [c.allow_direct for c in js.updates] == ([] if wanted is None else [wanted])
