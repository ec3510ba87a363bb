"""The peak of a stack's anonymous memory over a block: the memhive process and each of its
children (ingest, nats-server, an HNSW build), sampled from /proc.

Anonymous memory is what a pod's memory limit must hold: the lanes' mapped files are
counted in VmRSS too (twice when the build's child maps a copy), but the kernel can drop
those pages; it cannot drop anonymous ones. A 1M load's peak is mid-load, not after it
("The swap's journal", docs/benchmarks.md), so sampling is the only way to see it.
"""

from __future__ import annotations

import threading

from bench.running_stack import tree_mib


def anonymous_mib(pid: int) -> float:
    """Anonymous memory of a process and its children (MiB), from smaps_rollup."""
    return tree_mib(pid, "smaps_rollup", "Anonymous:")


class AnonymousPeak:
    """`with AnonymousPeak(pid) as peak: ...`, then `peak.mib`: the largest sample."""

    def __init__(self, pid: int, every_s: float = 0.5) -> None:
        self._pid, self._every_s = pid, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="anonymous-peak", daemon=True)
        self.mib = 0.0

    def __enter__(self) -> AnonymousPeak:
        self.mib = anonymous_mib(self._pid)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self.mib = max(self.mib, anonymous_mib(self._pid))

    def _sample(self) -> None:
        while not self._stop.wait(self._every_s):
            self.mib = max(self.mib, anonymous_mib(self._pid))
