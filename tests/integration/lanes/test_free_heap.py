"""`release_free_heap` on a real glibc heap: pages freed below a live allocation go back to
the kernel only when it is called. Run in a child process, so the heap is its own."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

HEAP = """
import json
from memhive_adapters.free_heap import release_free_heap

def anonymous_mib():
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) / 1024

blocks = [bytes(4000) + bytes([i % 256]) for i in range(40_000)]  # ~160 MiB from malloc
kept = blocks[::16]  # live blocks all along the heap, its top among them
del blocks
freed = anonymous_mib()
released = release_free_heap()
print(json.dumps({"freed": freed, "trimmed": anonymous_mib(), "released": released}))
"""


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_the_pages_freed_below_live_blocks_go_back_to_the_kernel() -> None:
    run = subprocess.run([sys.executable, "-c", HEAP], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    heap = json.loads(run.stdout)
    assert heap["released"]
    assert heap["freed"] - heap["trimmed"] > 100, heap  # of ~150 MiB freed in 4 KB holes
