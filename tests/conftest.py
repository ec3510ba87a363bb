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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        for tier in TIERS:
            if tier in parts:
                item.add_marker(getattr(pytest.mark, tier))
