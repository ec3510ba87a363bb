"""The data dir's low-space watermark: writes stop before the disk is full, and start again
by themselves once it is not.

A full disk is worse than a refused write: nats-server keeps a stream's write error after
ENOSPC until it is restarted, tantivy loses every later commit of a writer that failed one,
and qdrant-edge writes through memory-mapped files, where a full disk is a SIGBUS that kills
the process. So below `min_free` bytes free (MEMHIVE_STORAGE__MIN_FREE) the gateway refuses
writes (507) and the lanes take no index writes (the consumer retries them); reads go on.
Like Elasticsearch's flood-stage watermark, it lets go a little above where it took hold
(`RESUME_MARGIN`), so a disk hovering at the line does not flip it on every write.

Free space is read on every check (one statvfs, about a microsecond): no timer, and a disk
freed a moment ago is seen at once.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from memhive_ports import InsufficientStorage
from memhive_settings import MemhiveSettings

log = logging.getLogger(__name__)

RESUME_MARGIN = 0.1  # of min_free, at least MIN_MARGIN_BYTES
MIN_MARGIN_BYTES = 1 << 20


def available_bytes(path: Path) -> int:
    """What an unprivileged writer may still use on `path`'s file system (f_bavail); of
    its nearest existing parent while it does not exist yet. Read on every write: one
    statvfs (~2 us), where `exists()` then `shutil.disk_usage` cost three times that."""
    while True:
        try:
            stats = os.statvfs(path)
        except (FileNotFoundError, NotADirectoryError):
            if path == path.parent:
                raise
            path = path.parent
        else:
            return stats.f_bavail * stats.f_frsize


class FreeSpace:
    def __init__(
        self,
        path: Path,
        min_free: int,
        *,
        measure: Callable[[Path], int] = available_bytes,
    ) -> None:
        self.path, self.min_free = Path(path), min_free
        self._measure = measure
        self._low = False

    @property
    def resume_at(self) -> int:
        """Free bytes at which writes start again after a low spell."""
        return self.min_free + max(int(self.min_free * RESUME_MARGIN), MIN_MARGIN_BYTES)

    def has_room(self) -> bool:
        """At or above `resume_at` now (re-read; the low state and its log are untouched)."""
        return self._measure(self.path) >= self.resume_at

    @property
    def low(self) -> bool:
        """Below the watermark now (re-read)."""
        free = self._measure(self.path)
        if not self._low and free < self.min_free:
            self._low = True
            log.warning(
                "low disk space: %s has %d bytes free, below the watermark of %d "
                "(MEMHIVE_STORAGE__MIN_FREE): refusing writes until space is freed",
                self.path, free, self.min_free,
            )  # fmt: skip
        elif self._low and free >= self.resume_at:
            self._low = False
            log.info("disk space is back: %s has %d bytes free; accepting writes", self.path, free)
        return self._low

    def require(self, what: str) -> None:
        """Raises InsufficientStorage (naming `what`) while below the watermark."""
        if self.low:
            free = self._measure(self.path)
            raise InsufficientStorage(
                f"{what}: memhive's disk is nearly full ({_mib(free)} free, below the "
                f"{_mib(self.min_free)} it keeps free); writes resume by themselves once "
                "space is freed"
            )


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def data_dir_space(settings: MemhiveSettings) -> FreeSpace | None:
    """The watermark of a process that keeps the bus or a lane in the data dir; None when
    it keeps neither there (distributed mode) or the watermark is off."""
    embedded = (
        settings.nats.embedded
        or settings.vector.backend == "edge"
        or settings.lexical.backend == "tantivy"
    )
    if not embedded or settings.storage.min_free <= 0:
        return None
    return FreeSpace(settings.data_dir, int(settings.storage.min_free))
