"""`memhive run` records where it listens once its HTTP server is up (`instance.py`), and
removes the record when it stops, so other commands find it without being told."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from memhive_settings import MemhiveSettings

from memhive_cli.http_server import local_url
from memhive_cli.instance import Instance, remove_instance, write_instance


@contextlib.contextmanager
def instance_record(settings: MemhiveSettings) -> Iterator[Callable[[int], None]]:
    """Yields what to call with the HTTP port once the server listens; the record is removed
    when the block ends."""
    written: list[Instance] = []

    def record(port: int) -> None:
        instance = instance_of(settings, port)
        write_instance(instance, os.environ)
        written.append(instance)

    try:
        yield record
    finally:
        for instance in written:
            remove_instance(instance, os.environ)


def instance_of(settings: MemhiveSettings, port: int) -> Instance:
    url = local_url(settings.http_host, port)
    return Instance(settings.data_dir.absolute(), url, settings.nats.url, os.getpid())
