"""The peak of a stack's anonymous memory over a block: the memhive process and each of its
children (ingest, nats-server, an HNSW build), sampled from /proc.

Anonymous memory is what a pod's memory limit must hold: the lanes' mapped files are
counted in VmRSS too (twice when the build's child maps a copy), but the kernel can drop
those pages; it cannot drop anonymous ones. A 1M load's peak is mid-load, not after it
("The swap's journal", docs/benchmarks.md), so sampling is the only way to see it.
"""

from __future__ import annotations

import threading

from bench.running_stack import children, proc_kib, process_label


def anonymous_mib(pid: int) -> float:
    """Anonymous memory of a process and its children (MiB), from smaps_rollup."""
    return sum(anonymous_by_process(pid).values())


def anonymous_by_process(pid: int) -> dict[str, float]:
    """Anonymous memory (MiB) of a process and of each of its children, named as the CPU
    table names them (`process_label`), from smaps_rollup."""
    mib: dict[str, float] = {}
    for p in [pid, *children(pid)]:
        kib, label = proc_kib(p, "smaps_rollup", "Anonymous:"), process_label(p, pid)
        if kib is not None and label is not None:
            mib[label] = mib.get(label, 0.0) + kib / 1024
    return mib


class AnonymousPeak:
    """`with AnonymousPeak(pid) as peak: ...`, then `peak.mib`: the largest sample, and
    `peak.by_process`: how that sample divides among the processes."""

    def __init__(self, pid: int, every_s: float = 0.5) -> None:
        self._pid, self._every_s = pid, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="anonymous-peak", daemon=True)
        self.mib = 0.0
        self.by_process: dict[str, float] = {}

    def __enter__(self) -> AnonymousPeak:
        self._take()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self._take()

    def _sample(self) -> None:
        while not self._stop.wait(self._every_s):
            self._take()

    def _take(self) -> None:
        sample = anonymous_by_process(self._pid)
        if sum(sample.values()) > self.mib:
            self.mib, self.by_process = sum(sample.values()), sample
