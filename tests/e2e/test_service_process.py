"""Ingest runs as a child process of `memhive run` (the second core): when it dies, it is
started again and the save that was waiting on it is still persisted and indexed; Ctrl-C
then stops everything cleanly."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from memhive_adapters.process_lifetime import command_line

from bench.running_stack import free_port
from tests.e2e.process import MemhiveProcess, client, gone_within


def _recalled_first(api, query: str, memory_id: str, timeout_s: float = 120) -> bool:
    deadline = time.monotonic() + timeout_s
    while [m.id for m in api.recall(query)][:1] != [memory_id]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _ingest_ready_becomes(memhive: MemhiveProcess, ready: bool) -> bool:
    """Until the parent's /readyz says the ingest child is (un)ready, and the whole process
    with it (ready also needs the lanes and the model, which may still be loading)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = httpx.get(f"{memhive.url}/readyz", timeout=5)
        if answer.json().get("ingest") is ready and (answer.status_code == 200) is ready:
            return True
        time.sleep(0.05)
    return False


def _one_service(memhive: MemhiveProcess, other_than: int | None = None) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pids = [p for p in memhive.service_pids() if p != other_than]
        if pids:
            [pid] = pids
            return pid
        time.sleep(0.1)
    raise AssertionError(f"no service process:\n{memhive.output()}")


@pytest.mark.timeout(300)
def test_a_killed_ingest_process_is_restarted_and_nothing_is_lost(tmp_path: Path) -> None:
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    try:
        memhive.wait_until_healthy()
        ingest = _one_service(memhive)
        assert command_line(ingest)[-2:] == ["serve", "ingest"]

        assert _ingest_ready_becomes(memhive, True)
        os.kill(ingest, signal.SIGKILL)
        assert _ingest_ready_becomes(memhive, False)  # the parent's /readyz says it is down
        with client(memhive.url) as api:  # saved while no ingest runs
            saved = api.save("fact", "The release branch is cut on Wednesdays", wait="indexed")
            # Accepted: the restart outlasted the save's wait (15 s at a load of 24 on two
            # cores); the command is in the log, so the new ingest applies it all the same.
            assert saved.status in ("indexed", "accepted"), saved
            assert _recalled_first(api, "when is the release branch cut?", saved.id)

        restarted = _one_service(memhive, other_than=ingest)
        assert _ingest_ready_becomes(memhive, True)
        assert "memhive ingest exited with code -9; starting it again" in memhive.output()
        assert memhive.ctrl_c() == 0, memhive.output()
        assert gone_within(restarted, 10)
        assert "Traceback" not in memhive.output()
    finally:
        memhive.ensure_gone()


@pytest.mark.timeout(300)
def test_a_stop_that_reaches_the_ingest_child_too_is_not_taken_for_a_crash(
    tmp_path: Path,
) -> None:
    """A service manager stopping the whole tree (systemd's control-group kill) sends
    SIGTERM to every process at once: ingest stops by itself while `memhive run` stops,
    which is a stop like any other, not a crash to log and restart."""
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "run")
    try:
        memhive.wait_until_healthy()
        ingest = _one_service(memhive)
        assert _ingest_ready_becomes(memhive, True)

        os.kill(memhive.process.pid, signal.SIGTERM)
        os.kill(ingest, signal.SIGTERM)

        assert memhive.process.wait(timeout=60) == 0, memhive.output()
        assert gone_within(ingest, 10)
        assert memhive.service_pids() == []
        assert "exited with code" not in memhive.output()
        assert "ERROR" not in memhive.output()
        assert "Traceback" not in memhive.output()
    finally:
        memhive.ensure_gone()
