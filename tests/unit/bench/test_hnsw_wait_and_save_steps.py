"""Two small pieces of the benchmarks: when an HNSW build counts as under way, and how the
save-steps bench reads its variants and reports medians."""

from __future__ import annotations

from pathlib import Path

from memhive_adapters.vector import shard_dirs

from bench.load_latency import _copies_under_way
from bench.save_steps import _variants, render


def test_a_shard_copy_beside_the_active_one_is_a_build_under_way(tmp_path: Path) -> None:
    lane = tmp_path / "qdrant-edge"
    shard_dirs.active_shard(lane).mkdir()  # a new lane: shard-0, named by its pointer
    assert not _copies_under_way(tmp_path)
    shard_dirs.next_shard(lane).mkdir()  # a build copying, or a chained one after a swap
    assert _copies_under_way(tmp_path)


def test_variants_are_labelled_stack_settings() -> None:
    assert _variants([]) == {"this checkout": {}}
    parsed = _variants(['quiet={"MEMHIVE_RUN_SERVICES": "[\\"ingest\\"]"}', "main={}"])
    assert parsed == {"quiet": {"MEMHIVE_RUN_SERVICES": '["ingest"]'}, "main": {}}


def test_the_report_gives_each_variants_median_over_rounds() -> None:
    rows = [
        {"per_s": r, "command": c, "saved": 1, "indexed": 2, "audit": 3, "answer": a}
        for r, c, a in ((30, 20, 31), (10, 90, 99), (33, 19, 30))
    ]
    table = render({"main": rows})
    assert table.splitlines()[-1] == "| main | 30.0 | 20.0 | 1.0 | 2.0 | 3.0 | 31.0 |"
