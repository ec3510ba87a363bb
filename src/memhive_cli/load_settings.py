"""The settings, loaded on first use: pydantic-settings is imported only by commands that
need it, so `memhive --help` stays light (tests/integration/cli/test_cli_start_is_light.py)."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhive_settings import MemhiveSettings

# What `--verbose` shows: which instance a command talks to (main.py sets its level).
verbose = logging.getLogger("memhive_cli.verbose")


def load_settings() -> MemhiveSettings:
    """The environment's settings, as they are: what `memhive run` and `serve` start with."""
    from memhive_settings import MemhiveSettings

    return MemhiveSettings()


def instance_settings() -> MemhiveSettings:
    """The settings of the running instance a command talks to (`instance.find_instance`):
    its data dir (its bus credentials are there) and its bus URL. MEMHIVE_NATS__URL, when
    set, names the bus itself, and the environment's settings are used as they are."""
    from memhive_settings import MemhiveSettings

    from memhive_cli.instance import find_instance

    if "MEMHIVE_NATS__URL" in os.environ:
        settings = MemhiveSettings()
        verbose.info("bus %s (MEMHIVE_NATS__URL), data %s", settings.nats.url, settings.data_dir)
        return settings
    found = find_instance(os.environ)
    if found is None:
        settings = MemhiveSettings()
        verbose.info("no running memhive found; bus %s (the default)", settings.nats.url)
        return settings
    verbose.info("talking to %s", found.describe())
    return MemhiveSettings(data_dir=found.data_dir, nats={"url": found.bus_url})
