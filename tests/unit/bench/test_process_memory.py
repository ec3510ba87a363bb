"""The anonymous memory peak of a process tree, from /proc, on real processes."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

from bench.process_memory import AnonymousPeak, anonymous_mib, process_name
from bench.running_stack import children

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
        assert max(peak.by_process.values()) >= 200  # both are "python": one entry
        assert anonymous_mib(parent.pid) < 100  # the parent alone, after the child
    finally:
        parent.kill()
        parent.wait()


def test_a_process_gone_counts_nothing() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert anonymous_mib(gone.pid) == 0


def test_a_process_is_named_by_what_it_runs() -> None:
    def argv(*words: str) -> list[bytes]:
        return [w.encode() for w in words] + [b""]  # /proc/<pid>/cmdline ends in a NUL

    python = "/srv/.venv/bin/python"
    assert process_name(argv(python, "-m", "memhive_cli.main", "run")) == "memhive run"
    assert process_name(argv(python, "-m", "memhive_cli.main", "serve", "ingest", "-v")) == (
        "memhive serve ingest"
    )
    build = argv(python, "-m", "memhive_adapters.vector.optimize_shard", "/d", "384", "int8")
    assert process_name(build) == "optimize_shard"
    assert process_name(argv("/usr/bin/nats-server", "-c", "x.conf")) == "nats-server"
