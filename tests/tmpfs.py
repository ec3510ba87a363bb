"""A small tmpfs for full-disk tests: mounted for the test, filled, enlarged, unmounted.

Mounting needs root (CI runs as root); elsewhere, or where the kernel refuses the mount
(a container without CAP_SYS_ADMIN), the test is skipped, saying why.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

MiB = 1 << 20
BALLAST = "ballast"


@contextlib.contextmanager
def small_tmpfs(mount_point: Path, size_mib: int) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs the full-disk tests as root)")
    mount_point.mkdir(parents=True, exist_ok=True)
    mounted = _run("mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=0700", "tmpfs",
                   str(mount_point))  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"could not mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        _run("umount", "-l", str(mount_point))


def resize(mount_point: Path, size_mib: int) -> None:
    resized = _run("mount", "-o", f"remount,size={size_mib}m", str(mount_point))
    assert resized.returncode == 0, resized.stderr


def fill(mount_point: Path, leave_bytes: int = 0) -> int:
    """Grows a ballast file until about `leave_bytes` are free; returns the ballast's size."""
    path = mount_point / BALLAST
    with path.open("ab", buffering=0) as ballast:
        while (room := free_bytes(mount_point) - leave_bytes) > 0:
            try:
                ballast.write(b"\0" * min(room, MiB))
            except OSError:  # full: what is left is less than a page or two
                break
    return path.stat().st_size


def empty(mount_point: Path) -> None:
    (mount_point / BALLAST).unlink(missing_ok=True)


def free_bytes(mount_point: Path) -> int:
    stat = os.statvfs(mount_point)
    return stat.f_bavail * stat.f_frsize


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=30)
