"""The data directory has one memhive process at a time (`memhive run`, or an offline
`backup`/`restore`): an flock the kernel drops when the process dies, even on kill -9."""

from __future__ import annotations

from urllib.parse import urlparse

from memhive_adapters.private_files import private_directory
from memhive_adapters.process_lifetime import DirectoryLock
from memhive_settings import MemhiveSettings

LOCK_FILE = "memhive.lock"


def data_dir_lock(settings: MemhiveSettings) -> DirectoryLock:
    """The data dir's lock; the directory is made (or made again) private on the way."""
    private_directory(settings.data_dir)
    return DirectoryLock(settings.data_dir, LOCK_FILE, "memhive")


def nats_port(settings: MemhiveSettings) -> int:
    return urlparse(settings.nats.url).port or 4222
