"""Test tiers by folder: each test gets the marker of the folder it lives in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TIERS = ("unit", "integration", "e2e")

# No test reaches the internet for a model or a price list.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        for tier in TIERS:
            if tier in parts:
                item.add_marker(getattr(pytest.mark, tier))
