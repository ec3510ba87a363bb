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


class ServiceProcesses(Protocol):
    """The service processes this process started and answers for (`memhive run`'s
    children): its /readyz and /metrics include theirs, so an operator watches one process."""

    async def readiness(self) -> dict[str, bool]:
        """One check per child service (e.g. "ingest"), True when its /readyz says ready."""
        ...

    async def metrics(self) -> dict[str, bytes]:
        """Each child's Prometheus text by its telemetry service name (e.g. "memhive-ingest");
        a child that does not answer is left out (its readiness says why)."""
        ...
