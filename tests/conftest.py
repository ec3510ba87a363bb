"""Test tiers by folder: each test gets the marker of the folder it lives in."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

TIERS = ("unit", "integration", "e2e")

# No test reaches the internet for a model or a price list.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Every stack the tests start (each with a data dir of its own, in-process or as a `memhive`
# subprocess) shares one ONNX graph cache, so the graph is built once, not once per data dir.
# The cache is keyed by the weights and the builder's code, so reusing it across runs is safe.
os.environ.setdefault(
    "MEMHIVE_EMBEDDING__CACHE_DIR",
    str(Path(tempfile.gettempdir()) / f"memhive-test-models-{os.getuid()}"),
)

# Where `memhive run` records itself for other commands (memhive_cli/instance.py) and where
# `memhive login` keeps a token: this session's own directories, so tests neither see the
# user's (or another run's) instances and token nor leave theirs behind.
_USER_DIRS = Path(tempfile.mkdtemp(prefix="memhive-test-user-"))
for _variable in ("XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
    os.environ[_variable] = str(_USER_DIRS / _variable.lower())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        for tier in TIERS:
            if tier in parts:
                item.add_marker(getattr(pytest.mark, tier))
