"""`memhive run` as a real process in its own session, as a terminal would start it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from memhive_adapters.process_lifetime import command_line, read_pid
from memhive_client import MemhiveClient, RetryPolicy

TOKEN = "e2e-dev-token"
RETRIES = RetryPolicy()  # the client's default: 429, 503 and a refused connection


class MemhiveProcess:
    def __init__(
        self,
        data_dir: Path,
        http_port: int,
        nats_port: int,
        log_name: str,
        *,
        env: dict[str, str] | None = None,
        log_dir: Path | None = None,
        umask: int | None = None,
    ) -> None:
        """`env`: more settings; `log_dir`: where its output goes (default: beside the data
        dir); `umask`: the one it starts with (the shell's, by default)."""
        self.data_dir, self.url = data_dir, f"http://127.0.0.1:{http_port}"
        self.log = (log_dir or data_dir.parent) / f"{data_dir.name}-{log_name}.log"
        settings = os.environ | {
            "MEMHIVE_DATA_DIR": str(data_dir),
            "MEMHIVE_HTTP_PORT": str(http_port),
            "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{nats_port}",
            "MEMHIVE_DEV_TOKEN": TOKEN,
        }
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "memhive_cli.main", "run"],
                env=settings | (env or {}),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, like a shell job
                preexec_fn=None if umask is None else lambda: os.umask(umask),
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    @contextlib.contextmanager
    def explained(self, lines: int = 80) -> Iterator[None]:
        """A failure in this block says whether memhive still runs (or its exit code), the
        free space of its data dir, and the end of its output: when memhive went away under
        a check, the reason is in its output, not in the client's ConnectError."""
        try:
            yield
        except BaseException as failure:
            code = self.process.poll()
            state = "still running" if code is None else f"exited with {code}"
            # The nearest directory that exists: memhive may have gone before making its own.
            there = next(d for d in (self.data_dir, *self.data_dir.parents) if d.exists())
            free = shutil.disk_usage(there).free // 2**20
            tail = "\n".join(self.output().splitlines()[-lines:])
            failure.add_note(
                f"memhive run ({self.log.name}) {state}; {free} MiB free on its data dir's disk; "
                f"the end of its output:\n{tail}"
            )
            raise

    def wait_until_ready(self, timeout_s: float = 120) -> None:
        """Healthy, and /readyz says every check passes."""
        self.wait_until_healthy(timeout_s)
        deadline = time.monotonic() + timeout_s
        while httpx.get(f"{self.url}/readyz", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, f"never ready:\n{self.output()}"
            time.sleep(0.2)

    def wait_until_healthy(self, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"memhive run exited early:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"memhive run not healthy in {timeout_s}s:\n{self.output()}")

    def nats_server_pid(self) -> int:
        pid = read_pid(self.data_dir / "nats" / "nats-server.pid")
        assert pid is not None and command_line(pid) is not None
        return pid

    def service_pids(self) -> list[int]:
        """The background services `memhive run` started as processes of their own."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except FileNotFoundError:
            return []
        return [int(c) for c in children if "serve" in (command_line(int(c)) or [])]

    def ctrl_c(self) -> int:
        """What a terminal does on Ctrl-C: SIGINT to the whole foreground process group."""
        os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=60)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def ensure_gone(self) -> None:
        if self.process.poll() is None:
            self.kill()


def gone_within(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while command_line(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def client(url: str, retry: RetryPolicy = RETRIES) -> MemhiveClient:
    """memhive_client with the dev token of `MemhiveProcess`."""
    return MemhiveClient(url, TOKEN, timeout_s=30, retry=retry)


def memhive_command(
    data_dir: Path, nats_port: int, *args: str, umask: int | None = None
) -> subprocess.CompletedProcess:
    """A short `memhive ...` command (backup, restore, reindex) against that data dir."""
    env = os.environ | {
        "MEMHIVE_DATA_DIR": str(data_dir),
        "MEMHIVE_NATS__URL": f"nats://127.0.0.1:{nats_port}",
    }
    command = [sys.executable, "-m", "memhive_cli.main", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=None if umask is None else lambda: os.umask(umask))  # fmt: skip
