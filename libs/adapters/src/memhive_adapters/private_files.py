"""What memhive keeps on disk is its user's alone: directories 0700, files 0600.

The data dir holds every private memory (the log, the record, the lanes) and the bus's
seeds; a backup holds all of it and the token digests. Like PostgreSQL (which runs with a
0077 umask and wants its data directory 0700), memhive's commands set `PRIVATE_UMASK`, so
every file they and their children (nats-server, the engines) create is private, and the
places that matter say so themselves, whatever the umask.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

PRIVATE_UMASK = 0o077


def private_directory(path: Path) -> Path:
    """`path` (and any missing parents), 0700 even if it existed with a wider mode."""
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def open_private(path: Path) -> BinaryIO:
    """For writing from the start, 0600 even if the file existed with a wider mode."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "wb")


def write_private(path: Path, data: str | bytes) -> None:
    """Written to a temporary file created 0600 and renamed, so a secret is never readable
    by others, not even for a moment, and a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open_private(tmp) as out:
        out.write(data.encode() if isinstance(data, str) else data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
