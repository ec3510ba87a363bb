"""A store built with the previous default encoder (int8 v1), started without the setting
that named it: it migrates to today's default by itself (what every store does when the
default encoder changes).

Real `memhive run` processes. While the new generation is built in the background, recall
(the vector lane alone, whose scores would be noise if a query met vectors of the other
encoder) keeps answering from the old lanes; kill -9 in the middle of that build and a
plain restart begin it again and finish it; then the new generation serves, recorded in
`lanes.json` with its encoder, and the old one is gone.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from memhive_settings.settings import EmbeddingSettings

from bench.running_stack import free_port
from tests.e2e.process import MemhiveProcess, client

PREVIOUS = "all-MiniLM-L6-v2/int8-per-text-v1"
DEFAULT = EmbeddingSettings().model
FILLER = 300  # enough memories that the rebuild takes seconds, not milliseconds
PROBE = "The lighthouse keeper on Skerry Island logs the fog horn tests every Sunday"
QUESTION = "who tests the fog horn at the lighthouse"


def _pointer(data_dir: Path) -> dict:
    return json.loads((data_dir / "lanes.json").read_text())


def _build_previous_store(data_dir: Path, ports: tuple[int, int]) -> str:
    before = MemhiveProcess(data_dir, *ports, "before", env={"MEMHIVE_EMBEDDING__MODEL": PREVIOUS})
    try:
        before.wait_until_healthy()
        with client(before.url) as memhive:
            probe = memhive.save("fact", PROBE, wait="indexed").id
            bodies = [f"Filler {n}: invoice batch {n * 13} was reconciled" for n in range(FILLER)]
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda b: memhive.save("event", b, force=True), bodies))
        assert before.ctrl_c() == 0
    finally:
        before.ensure_gone()
    assert _pointer(data_dir)["embedding_model"] == PREVIOUS
    return probe


def _answered(url: str, probe: str) -> bool:
    with client(url) as memhive:
        return [hit.id for hit in memhive.recall(QUESTION, lanes=["vector"])][:1] == [probe]


def assert_new_saves_are_found(url: str) -> None:
    """A save after the migration is found by the vector lane alone: its lanes and the
    query's pass share the new encoder."""
    with client(url) as memhive:
        later = memhive.save("fact", "The ferry to Skerry Island leaves at noon", wait="indexed")
        hits = memhive.recall("when does the Skerry ferry leave", lanes=["vector"])
        assert hits[0].id == later.id


def _wait_for(condition, timeout_s: float = 240) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_store_of_the_previous_default_migrates_to_todays_by_itself(tmp_path: Path) -> None:
    assert DEFAULT != PREVIOUS
    data_dir, ports = tmp_path / "data", (free_port(), free_port())
    probe = _build_previous_store(data_dir, ports)
    building = data_dir / "qdrant-edge.gen-1"

    killed = MemhiveProcess(data_dir, *ports, "killed")
    try:
        killed.wait_until_healthy()
        _wait_for(building.exists)
        assert _answered(killed.url, probe)  # the old lanes serve while the new ones fill
        assert _pointer(data_dir)["embedding_model"] == PREVIOUS
        killed.kill()  # kill -9, the rebuild half done
    finally:
        killed.ensure_gone()
    assert _pointer(data_dir)["generation"] == 0

    restarted = MemhiveProcess(data_dir, *ports, "restarted")
    try:
        restarted.wait_until_healthy()
        answers = []
        while _pointer(data_dir)["embedding_model"] != DEFAULT:
            answers.append(_answered(restarted.url, probe))
        answers.append(_answered(restarted.url, probe))
        assert all(answers), answers
        assert "rebuilding them in the background" in restarted.output()
        _wait_for(lambda: f"lanes migrated to {DEFAULT}" in restarted.output())  # old ones dropped
        assert_new_saves_are_found(restarted.url)
        assert restarted.ctrl_c() == 0
    finally:
        restarted.ensure_gone()
    assert _pointer(data_dir)["generation"] == 1
    assert not (data_dir / "qdrant-edge").exists() and not (data_dir / "tantivy").exists()
