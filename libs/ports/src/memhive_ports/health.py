"""What a process's /readyz and /metrics ask of it."""

from __future__ import annotations

from typing import Protocol


class HealthProbe(Protocol):
    async def readiness(self) -> dict[str, bool]:
        """One named check per dependency, True when it can serve; ready when all are."""
        ...

    async def record_lane_sizes(self) -> None:
        """Set the lane gauges, just before a Prometheus scrape renders them."""
        ...
