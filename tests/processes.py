"""What tests read of another running process, from /proc."""

from __future__ import annotations

from pathlib import Path


def environment_of(pid: int) -> dict[str, str]:
    """The environment a process was started with."""
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode(errors="replace").partition("=")[::2] for p in pairs if p)
