"""A throwaway `memhive run` for benchmarks: its own data dir, ports and dev token."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import bus_credentials
from memhive_adapters.process_lifetime import command_line
from memhive_client import AsyncMemhiveClient, RetryPolicy
from memhive_contracts.bus_permissions import ADMIN
from memhive_settings import MemhiveSettings
from nats.aio.client import Client as NatsClient

# A benchmark counts a refused or failed request instead of retrying it away.
NO_RETRIES = RetryPolicy(attempts=1)
STARTUP_S = 300


@dataclass(frozen=True)
class RunningStack:
    url: str
    token: str
    nats_url: str
    data_dir: Path
    pid: int

    def client(self, max_connections: int | None = None) -> AsyncMemhiveClient:
        """The dev token's client, without retries; `max_connections` bounds its pool."""
        return AsyncMemhiveClient(
            self.url, self.token, timeout_s=120, retry=NO_RETRIES, max_connections=max_connections
        )

    async def bus(self) -> NatsClient:
        """A NATS connection as the bus's admin user, with the credentials `memhive run`
        generated in its data dir (the embedded server refuses anonymous connections)."""
        settings = MemhiveSettings(data_dir=self.data_dir, nats={"url": self.nats_url})
        credentials = bus_credentials(settings, ADMIN)
        return await connect(
            self.nats_url, name="memhive-bench", timeout_s=10, credentials=credentials
        )


_handed_out: set[int] = set()


def free_port(host: str = "127.0.0.1") -> int:
    """A port free now, never one this process handed out before (two calls in a row can
    otherwise get the same port: the stack's HTTP and nats ports would collide)."""
    while True:
        with socket.socket() as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port


@contextmanager
def running_stack(extra_env: dict[str, str] | None = None) -> Iterator[RunningStack]:
    with terminated_as_exit(), tempfile.TemporaryDirectory(prefix="memhive-bench-") as tmp:
        http_port, nats_port, token = free_port(), free_port(), "bench-token"
        env = (
            os.environ
            | {
                "MEMHIVE_DATA_DIR": tmp,
                "MEMHIVE_HTTP_PORT": str(http_port),
                "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{nats_port}",
                "MEMHIVE_DEV_TOKEN": token,
                "MEMHIVE_LOG_LEVEL": "WARNING",
            }
            | (extra_env or {})
        )
        log = open(Path(tmp) / "memhive.log", "w")  # noqa: SIM115 - lives as long as the process
        process = subprocess.Popen(
            [stack_python(env), "-m", "memhive_cli.main", "run"], env=env, stdout=log, stderr=log
        )
        url = f"http://127.0.0.1:{http_port}"
        try:
            _wait_healthy(url, process, Path(tmp) / "memhive.log")
            # extra_env may name a data dir to keep (a 1M store to measure again later).
            data_dir = Path(env["MEMHIVE_DATA_DIR"])
            yield RunningStack(url, token, f"nats://127.0.0.1:{nats_port}", data_dir, process.pid)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
            log.close()


@contextmanager
def terminated_as_exit() -> Iterator[None]:
    """A SIGTERM (a `kill`, a CI timeout) raises SystemExit in the main thread, so the stack
    is stopped and its data dir removed as on Ctrl-C; by default Python would exit at once
    and leave them behind."""

    def exit_(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return
    previous = signal.signal(signal.SIGTERM, exit_)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stack_python(env: Mapping[str, str]) -> str:
    """This interpreter, or MEMHIVE_BENCH_STACK_PYTHON's (the environment's, or a variant's
    own): another checkout's stack measured by the same benchmark code (an A/B against a
    baseline)."""
    return env.get("MEMHIVE_BENCH_STACK_PYTHON") or sys.executable


def _wait_healthy(url: str, process: subprocess.Popen, log: Path) -> None:
    # Generous: the first start builds the encoder's graphs, and a shared machine is slow.
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"memhive run exited:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"memhive run did not become healthy in {STARTUP_S} s")


def rss_mib(pid: int) -> float:
    """Resident memory of a process and its children (nats-server), from /proc."""
    return tree_mib(pid, "status", "VmRSS:")


def tree_mib(pid: int, proc_file: str, field: str) -> float:
    """A kB field of /proc/<p>/`proc_file` (`VmRSS:` of status, `Anonymous:` of
    smaps_rollup, ...) summed over a process and its children, in MiB."""
    return sum(proc_kib(p, proc_file, field) or 0 for p in [pid, *children(pid)]) / 1024


def proc_kib(p: int, proc_file: str, field: str) -> int | None:
    """A kB field of /proc/<p>/`proc_file`, or None once the process is gone (a child that
    exited between the listing and the read)."""
    try:
        lines = Path(f"/proc/{p}/{proc_file}").read_text().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return sum(int(line.split()[1]) for line in lines if line.startswith(field))


def process_label(p: int, root: int) -> str | None:
    """How the benches name a process of the stack rooted at `root`: "memhive", "ingest
    (child)", "HNSW build (child)", or its own name (nats-server); None once it is gone."""
    if p == root:
        return "memhive"
    arguments = " ".join(command_line(p) or [])
    if "optimize_shard" in arguments:
        return "HNSW build (child)"
    if " serve ingest" in arguments:
        return "ingest (child)"
    try:
        return Path(f"/proc/{p}/comm").read_text().strip()
    except (FileNotFoundError, ProcessLookupError):
        return None


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []
