"""kill -9 in the middle of a burst of saves, then a plain restart: nothing acknowledged is
lost or doubled, the nats-server died with memhive, and Ctrl-C later ends cleanly (exit 0).
Also: a second `memhive run` on a live data dir is refused; a stale server is reclaimed; a
memory indexed but not yet in a lexical commit when memhive died is indexed again."""

from __future__ import annotations

import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from memhive_adapters.nats.embedded_server import PID_FILE, find_nats_server
from memhive_client import MemhiveClient, RetryPolicy

from bench.running_stack import free_port
from tests.e2e.acknowledged import assert_kept_exactly_once
from tests.e2e.process import MemhiveProcess, client, gone_within

CLIENTS = 4
SAVES_PER_CLIENT = 40
KILL_AFTER_ACKS = 30
COLOURS = ["amber", "cobalt", "crimson", "jade", "ochre", "violet", "teal", "umber"]
THINGS = ["kettle", "glacier", "violin", "lantern", "harbour", "meadow", "compass", "orchard"]


def _body(writer: int, n: int) -> str:
    colour, thing = COLOURS[n % 8], THINGS[(n // 8 + writer) % 8]
    return f"Crash note w{writer}n{n}: the {colour} {thing} checklist lives in drawer {n * 7 + 3}"


def _burst(url: str, writer: int, acked: dict[str, str], stop: threading.Event) -> None:
    # No retries: a save is acknowledged by the answer to its one request, or not at all.
    with client(url, retry=RetryPolicy(attempts=1)) as memhive:
        for n in range(SAVES_PER_CLIENT):
            body = _body(writer, n)
            try:
                saved = memhive.save("fact", body, force=True, wait="persisted")
            except httpx.TransportError:
                return  # memhive is gone: what was not acknowledged may or may not be kept
            assert saved.status in ("persisted", "accepted"), saved  # 201 or 202
            acked[body] = saved.id
            if stop.is_set():
                return


def _orphan_nats_server(data_dir: Path, port: int) -> subprocess.Popen:
    """A nats-server as a crash before PDEATHSIG existed left it: no parent, PID file kept."""
    store = (data_dir / "nats").absolute()
    argv = [str(find_nats_server()), "-js", "-sd", str(store), "-a", "127.0.0.1", "-p", str(port)]
    orphan = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    (store / PID_FILE).write_text(f"{orphan.pid}\n")
    return orphan


def _listed(memhive: MemhiveClient) -> set[str]:
    return {memory.id for memory in memhive.iter_memories(page_size=100)}


@pytest.mark.timeout(900)  # several real starts; slow on a loaded machine
def test_kill_9_mid_burst_then_restart_loses_and_doubles_nothing(tmp_path: Path) -> None:
    data_dir, http_port, nats_port = tmp_path / "data", free_port(), free_port()
    first = MemhiveProcess(data_dir, http_port, nats_port, "first")
    try:
        first.wait_until_healthy()
        server = first.nats_server_pid()
        services = first.service_pids()
        assert services, "ingest runs in a process of its own"
        acked: dict[str, str] = {}
        stop = threading.Event()
        with ThreadPoolExecutor(CLIENTS) as pool:
            writers = [pool.submit(_burst, first.url, w, acked, stop) for w in range(CLIENTS)]
            while len(acked) < KILL_AFTER_ACKS and not all(w.done() for w in writers):
                time.sleep(0.01)
            first.kill()  # kill -9, mid-burst
            stop.set()
            for writer in writers:
                writer.result(timeout=60)
        assert len(acked) >= KILL_AFTER_ACKS
        assert gone_within(server, 10), "the nats-server outlived memhive"
        for pid in services:
            assert gone_within(pid, 10), "a service process outlived memhive"
    finally:
        first.ensure_gone()

    orphan = _orphan_nats_server(data_dir, nats_port)  # the worst case: a stale one, too
    second = MemhiveProcess(data_dir, http_port, nats_port, "second")  # no manual step
    try:
        with second.explained():
            second.wait_until_healthy()
            assert orphan.wait(timeout=10) is not None
            refused = MemhiveProcess(data_dir, free_port(), free_port(), "refused")
            assert refused.process.wait(timeout=120) != 0
            assert "is in use by another memhive (pid" in refused.output()

            with client(second.url) as memhive:
                assert_kept_exactly_once(memhive, acked)

            server, services = second.nats_server_pid(), second.service_pids()
            assert second.ctrl_c() == 0, second.output()
            assert all(gone_within(pid, 10) for pid in (server, *services))
            output = second.output()
            for noise in ("Traceback", "Error", "disconnected from NATS"):
                assert noise not in output, output
    finally:
        second.ensure_gone()


@pytest.mark.timeout(600)
def test_an_indexed_save_not_yet_committed_is_indexed_again_after_kill_9(tmp_path: Path) -> None:
    """The lexical lane commits in groups: embed acknowledges its events only once their
    commit is on disk, so after a kill the log delivers them again (after the consumer's
    ack wait) and the lane gets back what it held only in memory."""
    data_dir, http_port, nats_port = tmp_path / "data", free_port(), free_port()
    slow_commits = {
        "MEMHIVE_LEXICAL__COMMIT_INTERVAL_S": "30",  # no commit before the kill
        "MEMHIVE_RUN_SERVICES": '["ingest", "embed"]',
    }
    first = MemhiveProcess(data_dir, http_port, nats_port, "first", env=slow_commits)
    try:
        first.wait_until_healthy()
        with client(first.url) as memhive:
            saved = [
                memhive.save(
                    "fact", f"Uncommitted note {n}: the {COLOURS[n]} lantern", wait="indexed"
                )
                for n in range(3)
            ]
            assert {s.status for s in saved} == {"indexed"}
            assert {s.id for s in saved} <= _listed(memhive)  # found before any commit
        first.kill()
    finally:
        first.ensure_gone()

    second = MemhiveProcess(
        data_dir,
        http_port,
        nats_port,
        "second",
        env=slow_commits | {"MEMHIVE_LEXICAL__COMMIT_INTERVAL_S": "0.5"},
    )
    try:
        with second.explained():
            second.wait_until_healthy()
            with client(second.url) as memhive:
                deadline = time.monotonic() + 120
                while not {s.id for s in saved} <= _listed(memhive):
                    assert time.monotonic() < deadline, "never indexed again after the kill"
                    time.sleep(0.5)
            assert second.ctrl_c() == 0, second.output()
    finally:
        second.ensure_gone()
