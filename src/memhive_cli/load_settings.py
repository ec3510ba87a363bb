"""The settings, loaded on first use: pydantic-settings is imported only by commands that
need it, so `memhive --help` stays light (tests/integration/cli/test_cli_start_is_light.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhive_settings import MemhiveSettings


def load_settings() -> MemhiveSettings:
    from memhive_settings import MemhiveSettings

    return MemhiveSettings()
