"""What /readyz and /metrics ask of a process's Infrastructure.

Ready: the bus is connected and answers (a probe with a short deadline, or any request
answered within the last second: `nats/bus_liveness.py`), the data dir is above its
low-space watermark (where this process keeps data there) and, in a process that serves
from the lanes, both lanes answer, the embedding model is loaded and it serves the
generation the bus points at. Lane sizes are read when /metrics is scraped (a count is an
async engine call; OpenTelemetry's gauge callbacks are synchronous).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from opentelemetry import metrics

from memhive_adapters.runtime.infrastructure import Infrastructure

LANE_PROBE_TIMEOUT_S = 2.0

_meter = metrics.get_meter("memhive.lanes")
_lane_documents = _meter.create_gauge(
    "memhive.lane.documents", description="memories indexed in each recall lane"
)
_lane_generation = _meter.create_gauge(
    "memhive.lane.generation", description="the lane generation this process serves from"
)


@dataclass(frozen=True, slots=True)
class InfrastructureProbe:
    """HealthProbe of a process, over the Infrastructure it composed."""

    infra: Infrastructure

    async def readiness(self) -> dict[str, bool]:
        return await readiness(self.infra)

    async def record_lane_sizes(self) -> None:
        await record_lane_sizes(self.infra)


async def readiness(infra: Infrastructure) -> dict[str, bool]:
    checks = {"nats": infra.nats.is_connected and await infra.nats.liveness.answering()}
    if infra.space is not None:
        checks["disk"] = not infra.space.low
    if infra.lanes_opened:
        checks["lanes"] = await _lane_counts(infra) is not None
        checks["model"] = infra.embedder.dimensions > 0
        checks["generation"] = infra.serves_pointed_generation
    return checks


async def record_lane_sizes(infra: Infrastructure) -> None:
    if infra.lanes_opened:
        _lane_generation.set(infra.lane_set.current.spec.number)
    counts = await _lane_counts(infra) if infra.lanes_opened else None
    if counts is not None:
        for lane, count in counts.items():
            _lane_documents.set(count, {"lane": lane})


async def _lane_counts(infra: Infrastructure) -> dict[str, int] | None:
    vector, lexical = await infra.lanes()
    try:
        async with asyncio.timeout(LANE_PROBE_TIMEOUT_S):
            return {"vector": await vector.count(), "lexical": await lexical.count()}
    except Exception:
        return None
