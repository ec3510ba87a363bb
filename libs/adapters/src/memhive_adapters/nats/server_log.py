"""The embedded nats-server's log, read by memhive as it is written.

nats-server logs to a pipe memhive reads (`-l /dev/fd/N`, so a write after memhive died is
an EPIPE the server ignores, not the SIGPIPE a broken stdout would be): each line goes to
`nats-server.log` in the store dir when the disk takes it, the last lines are kept for
error messages, and a line saying the server could not write for lack of space
(`no space left on device`) is remembered: nats-server then keeps refusing that stream's
writes, without answering them, until it is restarted (measured with 2.15.1 on a full
tmpfs; freeing space does not clear it).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

# What Go's ENOSPC and EDQUOT errors read as, wherever the server logs a failed write.
OUT_OF_SPACE = ("no space left on device", "disk quota exceeded")
TAIL_LINES = 20


class ServerLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.write_failed = asyncio.Event()
        self._tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._reading: asyncio.Task | None = None
        self._read_end: int | None = None

    def tail(self) -> str:
        return "\n".join(self._tail)

    def open_pipe(self) -> int:
        """A new pipe; returns the end the server writes to (the caller closes it once the
        server has it). Reading starts with `follow`."""
        read_end, write_end = os.pipe()
        self._read_end = read_end
        return write_end

    def follow(self) -> None:
        fd, self._read_end = self._read_end, None
        assert fd is not None, "open_pipe first"
        self._reading = asyncio.get_running_loop().create_task(self._read(fd))

    def close_pipe(self) -> None:
        """The server never started: nothing to read."""
        fd, self._read_end = self._read_end, None
        if fd is not None:
            os.close(fd)

    async def finished(self) -> None:
        """Once the server has exited: the last lines read."""
        if self._reading is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reading
            self._reading = None

    async def _read(self, fd: int) -> None:
        """Until the server closes its end; never stops early (a server whose log pipe is
        full blocks)."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
        )
        kept = _open_for_append(self.path)
        pending = b""
        try:
            while chunk := await reader.read(65536):
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._note(line.decode(errors="replace"))
                if kept is not None:
                    with contextlib.suppress(OSError):  # a full disk loses lines, not us
                        kept.write(chunk)
        finally:
            transport.close()
            if kept is not None:
                kept.close()

    def _note(self, line: str) -> None:
        self._tail.append(line)
        if not self.write_failed.is_set() and any(s in line.lower() for s in OUT_OF_SPACE):
            self.write_failed.set()
            log.error(
                "nats-server could not write for lack of space (%s); it refuses writes until "
                "restarted, which memhive does once the disk has room again",
                line.split("] ", 2)[-1],
            )


def _open_for_append(path: Path):
    try:
        return path.open("ab", buffering=0)
    except OSError:
        return None
