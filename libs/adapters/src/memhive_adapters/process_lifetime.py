"""Keeping child processes and data directories to one owner at a time (Linux).

- `DirectoryLock`: an exclusive `flock` on a file in a directory, held while the process
  lives. The kernel drops it when the process dies, even on kill -9, so a crash never
  leaves a stale lock behind, and a second owner is refused at once.
- `die_with_parent`: for a child we cannot change (nats-server is a Go binary), asks the
  kernel to send it SIGTERM when its parent dies (`PR_SET_PDEATHSIG`). The signal fires
  when the *thread* that forked the child ends, so fork from the thread that lives as long
  as the process (the event loop's, in memhive the main thread).
- `reclaim`: ends a process left behind by an older crash, once it is known to be ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import fcntl
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1


class DirectoryBusy(RuntimeError):
    """Another live process owns this directory."""


class DirectoryLock:
    """`with DirectoryLock(dir, "memhive.lock", "memhive run"):` owns `dir` or raises."""

    def __init__(self, directory: Path, name: str, owner: str) -> None:
        self.path = Path(directory) / name
        self._owner = owner
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise DirectoryBusy(
                f"{self.path.parent} is in use by another {self._owner} (pid {holder}); "
                "stop it first, or choose another data directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock; the file stays (removing it would race)

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child get SIGTERM when its parent dies; None off Linux.

    libc is resolved here, in the parent, so the child only makes one system call.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    parent = os.getpid()

    def set_parent_death_signal() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)

    return set_parent_death_signal


def command_line(pid: int) -> list[str] | None:
    """The process's argv, or None if it is gone (or a zombie, which has none)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return [arg.decode(errors="replace") for arg in raw.split(b"\0") if arg] or None


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


async def reclaim(pid: int, timeout_s: float) -> None:
    """SIGTERM (lets it flush), then SIGKILL if it is still there after `timeout_s`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        if await _gone_within(pid, timeout_s):
            return
    raise RuntimeError(f"process {pid} survived SIGKILL")


async def _gone_within(pid: int, timeout_s: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while command_line(pid) is not None:
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)  # not our child: there is nothing to wait() on
    return True
