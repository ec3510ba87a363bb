"""The anonymous memory peak of a process tree, from /proc, on real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable

from memhive_adapters.process_lifetime import command_line

from bench.process_memory import AnonymousPeak, anonymous_mib
from bench.running_stack import children, process_label

# A parent that starts a child holding 200 MiB for a while, then both go on small.
_TREE = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import time; b = bytearray(200 * 2**20); time.sleep(1.5)"])
child.wait()
time.sleep(30)
"""


def until(condition: Callable[[], object], limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, "the process tree never got there"
        time.sleep(0.05)


def test_the_peak_holds_what_a_child_held_after_it_is_gone() -> None:
    parent = subprocess.Popen([sys.executable, "-c", _TREE])
    try:
        with AnonymousPeak(parent.pid, every_s=0.1) as peak:
            until(lambda: children(parent.pid))  # the child starts, allocates, holds
            until(lambda: not children(parent.pid))  # and exits
        assert peak.mib >= 200
        assert sum(peak.by_process.values()) == peak.mib  # the peak's own sample, divided
        held = {name: mib for name, mib in peak.by_process.items() if name != "memhive"}
        assert len(held) == 1 and min(held.values()) >= 200, peak.by_process  # the child's
        assert anonymous_mib(parent.pid) < 100  # the parent alone, after the child
    finally:
        parent.kill()
        parent.wait()


def test_a_process_gone_counts_nothing() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert anonymous_mib(gone.pid) == 0


def test_each_process_is_named_as_the_cpu_table_names_it() -> None:
    hold = [sys.executable, "-c", "import time; time.sleep(30)"]
    started = [
        subprocess.Popen(hold + extra) for extra in (["serve", "ingest"], ["optimize_shard"])
    ]
    try:
        ingest, build = (p.pid for p in started)
        for p in (ingest, build):  # exec'd: until then /proc shows this process's argv
            until(lambda p=p: hold[2] in (command_line(p) or []))
        root = os.getpid()  # the stack's memhive process, here the test's
        assert process_label(root, root) == "memhive"
        assert process_label(ingest, root) == "ingest (child)"
        assert process_label(build, root) == "HNSW build (child)"
    finally:
        for process in started:
            process.kill()
            process.wait()
    assert process_label(ingest, root) is None  # gone
