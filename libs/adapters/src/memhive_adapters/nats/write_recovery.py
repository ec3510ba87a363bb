"""The embedded nats-server writing again after a full disk, with no restart of memhive.

nats-server keeps a stream's write error after ENOSPC until it is restarted, and says so in
its log (`server_log.py`). Once it has, this waits until the data dir has room again (the
low-space watermark plus its margin, `free_space.py`; checked every `poll_s` only while a
failure is pending) and restarts the server: same store, port and credentials. JetStream
recovers every message it acknowledged (a write it never answered was a failure to its
caller, who retries), and every connection, the ingest process's too, reconnects by itself
(nats-py, every 0.5 s), so writes resume within seconds of the space coming back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer

log = logging.getLogger(__name__)

POLL_S = 1.0


class WriteRecovery:
    def __init__(
        self, server: EmbeddedNatsServer, space: FreeSpace, poll_s: float = POLL_S
    ) -> None:
        self._server, self._space, self._poll_s = server, space, poll_s
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="nats-recovery")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await self._server.write_failed.wait()
            while not self._space.has_room():  # noqa: ASYNC110 - the disk is not an event
                await asyncio.sleep(self._poll_s)
            log.warning("%s has room again: restarting nats-server so it writes again",
                        self._space.path)  # fmt: skip
            await self._restart()

    async def _restart(self) -> None:
        while True:
            try:
                await self._server.restart()
                return
            except Exception:  # noqa: BLE001 - logged; tried again
                log.exception("nats-server did not restart; trying again in %g s", self._poll_s)
                await asyncio.sleep(self._poll_s)
