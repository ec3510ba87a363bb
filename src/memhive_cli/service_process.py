"""A background service in a process of its own under `memhive run`, to use a second core.

The embedded engines (qdrant-edge, tantivy) allow one owning process, so the gateway, embed,
the link classifier and bulletins share `memhive run`'s process. Ingest touches no engine,
only the bus (record, log, tokens), so it runs as `memhive serve ingest`, a child on the
same embedded bus with its own generated credentials: its KV writes, events and access
counts no longer share the gateway's event loop.

- The child gets SIGTERM when `memhive run` dies, even on kill -9 (`die_with_parent`).
- `start()` returns once the child said its services are running (its first stdout line,
  which names the URL of its probes: `probe_url`, read for the parent's /readyz and /metrics).
- One process tree to observe: the child logs to the parent's stderr (inherited), each line
  naming its service (`memhive-ingest`); its stdout (console spans and metrics, one JSON
  object per line) is relayed to the parent's, line by line.
- A child that exits on its own is started again after a pause: unacked commands are
  redelivered to the new one, so nothing accepted is lost. Once `memhive run` is stopping
  (`stopping()`, told by its signal handler), a child's exit is expected: a service manager
  that stops the whole tree at once (systemd's control-group kill) sends it SIGTERM too.
- `stop()` sends SIGTERM (the child drains its in-flight batch) and waits; SIGKILL after
  `STOP_TIMEOUT_S`. It runs before the embedded nats-server stops. The child has a session
  of its own, so a terminal's Ctrl-C reaches `memhive run` alone, which stops it in order
  (a child stopping by itself meanwhile would be taken for a crash and started again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sys

from memhive_adapters.process_lifetime import die_with_parent
from memhive_settings import MemhiveSettings

log = logging.getLogger(__name__)

READY_TIMEOUT_S = 120.0
RESTART_PAUSE_S = 1.0
STOP_TIMEOUT_S = 30.0
READY_LINE = b" is running against "  # what `memhive serve` prints once its services run
PROBES = re.compile(rb"\(probes: (http://[^)\s]+)\)")


class ServiceProcess:
    def __init__(self, service: str, settings: MemhiveSettings) -> None:
        self.service = service
        self.service_name = child_service_name(service, settings)
        self._settings = settings
        self._process: asyncio.subprocess.Process | None = None
        self._supervisor: asyncio.Task | None = None
        self._stopping = False
        self.probe_url: str | None = None  # the running child's /healthz, /readyz, /metrics

    async def start(self) -> None:
        self._process = await self._spawn()
        self._supervisor = asyncio.create_task(self._supervise(), name=f"{self.service}-process")

    def stopping(self) -> None:
        """`memhive run` is stopping: from now on the child's exit is expected, neither
        logged as a crash nor started again. `stop()` still stops it, in order."""
        self._stopping = True

    async def stop(self) -> None:
        self.stopping()
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        process = self._process
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            log.warning("memhive %s did not stop in %.0f s: killed", self.service, STOP_TIMEOUT_S)
            process.kill()
            await process.wait()

    async def _supervise(self) -> None:
        while True:
            assert self._process is not None
            code = await self._process.wait()
            self.probe_url = None  # not ready until a new child says where it listens
            if not self._stopping:  # a stop of the whole tree may reach this process meanwhile
                await asyncio.sleep(RESTART_PAUSE_S)
            if self._stopping:
                return
            log.error(
                "memhive %s exited with code %s; starting it again after %.0f s",
                self.service,
                code,
                RESTART_PAUSE_S,
            )
            try:
                self._process = await self._spawn()
            except Exception:  # noqa: BLE001 - logged; tried again after the pause
                log.exception("memhive %s did not start", self.service)

    async def _spawn(self) -> asyncio.subprocess.Process:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "memhive_cli.main",
            "serve",
            self.service,
            env=child_environment(self.service, self._settings),
            stdout=asyncio.subprocess.PIPE,
            preexec_fn=die_with_parent(),  # forked from the event loop's (main) thread
            start_new_session=True,  # a terminal's Ctrl-C reaches memhive run, which stops it
        )
        try:
            ready = await asyncio.wait_for(_ready(process), READY_TIMEOUT_S)
        except BaseException:
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        found = PROBES.search(ready)
        self.probe_url = found.group(1).decode() if found else None
        return process


def child_service_name(service: str, settings: MemhiveSettings) -> str:
    """What the child's logs, spans and metrics call it: `memhive-ingest` (the parent is
    `memhive`), or the operator's service name with the service appended."""
    return f"{settings.telemetry.service_name}-{service.replace('_', '-')}"


def child_environment(service: str, settings: MemhiveSettings) -> dict[str, str]:
    """This process's environment (so the same settings), on the bus it started; the
    streams are declared already, and the probes listen on a port of the system's choice."""
    return os.environ | {
        "MEMHIVE_TELEMETRY__SERVICE_NAME": child_service_name(service, settings),
        "MEMHIVE_DATA_DIR": str(settings.data_dir),
        "MEMHIVE_NATS__URL": settings.nats.url,
        "MEMHIVE_NATS__DECLARE_STREAMS": "false",
        "MEMHIVE_HTTP_HOST": "127.0.0.1",
        "MEMHIVE_HTTP_PORT": "0",
    }


async def _ready(process: asyncio.subprocess.Process) -> bytes:
    """Until the child says it runs (that line is returned; those before it are relayed);
    then its stdout is relayed in the background."""
    assert process.stdout is not None
    while READY_LINE not in (line := await process.stdout.readline()):
        if not line:
            code = await process.wait()
            raise RuntimeError(f"memhive serve exited with code {code} before it was running")
        _write_out(line)
    _relay(process.stdout)
    return line


def _relay(stdout: asyncio.StreamReader) -> None:
    async def relay() -> None:
        while line := await stdout.readline():
            _write_out(line)

    task = asyncio.get_running_loop().create_task(relay())
    _RELAYS.add(task)
    task.add_done_callback(_RELAYS.discard)


def _write_out(line: bytes) -> None:
    # Whole lines only: what the parent printed first goes out first, and the parent's own
    # records (one line each) never land inside one of the child's.
    sys.stdout.flush()
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()


_RELAYS: set[asyncio.Task] = set()
