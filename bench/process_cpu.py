"""CPU seconds of a running stack's processes, from /proc: the memhive process and each of
its children (ingest, nats-server, an HNSW build), and of this client."""

from __future__ import annotations

import collections
import os
import time
from pathlib import Path

from bench.running_stack import children, process_label

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (FileNotFoundError once it is gone)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


def cpu_by_process(pid: int) -> collections.Counter[str]:
    """User + system CPU seconds of the memhive process and each child, by name."""
    out: collections.Counter[str] = collections.Counter()
    for p in [pid, *children(pid)]:
        try:
            if (label := process_label(p, pid)) is not None:
                out[label] += cpu_seconds(p)
        except FileNotFoundError:
            continue
    return out


class CpuMeter:
    """CPU per operation of each process of the stack and of this client, over a block."""

    def __init__(self, pid: int) -> None:
        self._pid = pid

    def __enter__(self) -> CpuMeter:
        self._began, self._client = cpu_by_process(self._pid), time.process_time()
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.used = cpu_by_process(self._pid)
        self.used.subtract(self._began)
        self.used["client"] = time.process_time() - self._client
        self.wall_s = time.perf_counter() - self._wall

    def per_operation_ms(self, operations: int) -> dict[str, float]:
        rows = {k: v / operations * 1000 for k, v in self.used.most_common() if v > 0}
        return rows | {"total (stack)": sum(v for k, v in rows.items() if k != "client")}
