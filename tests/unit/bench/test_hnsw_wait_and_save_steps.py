"""Two small pieces of the benchmarks: when an HNSW build counts as under way, and how the
save-steps and backlog benches read their variants and report medians."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

from memhive_adapters.vector import shard_dirs

from bench.indexed_during_burst import render as burst_render
from bench.load_latency import _copies_under_way, wait_for_hnsw_builds
from bench.recall_during_backlog import render as backlog_render
from bench.running_stack import RunningStack
from bench.save_steps import render, stack_variants


def test_a_shard_copy_beside_the_active_one_is_a_build_under_way(tmp_path: Path) -> None:
    lane = tmp_path / "qdrant-edge"
    shard_dirs.active_shard(lane).mkdir()  # a new lane: shard-0, named by its pointer
    assert not _copies_under_way(tmp_path)
    shard_dirs.next_shard(lane).mkdir()  # a build copying, or a chained one after a swap
    assert _copies_under_way(tmp_path)


async def test_a_build_that_begins_within_the_quiet_period_is_waited_for(
    tmp_path: Path,
) -> None:
    """As the lane builds what a swap replayed once it has been quiet: one build, a gap
    shorter than the quiet period, a second build; the wait ends a quiet period after it."""
    lane = tmp_path / "qdrant-edge"
    shard_dirs.active_shard(lane).mkdir()
    stack = RunningStack("http://unused", "t", "nats://unused", tmp_path, os.getpid())
    copy = shard_dirs.next_shard(lane)

    async def two_builds() -> float:
        copy.mkdir()
        await asyncio.sleep(0.3)
        shutil.rmtree(copy)
        await asyncio.sleep(0.5)  # shorter than the quiet period
        copy.mkdir()
        await asyncio.sleep(0.3)
        shutil.rmtree(copy)
        return time.perf_counter()

    began = time.perf_counter()
    builds = asyncio.create_task(two_builds())
    waited = await wait_for_hnsw_builds(stack, quiet_s=0.8, poll_s=0.05)
    second_ended = await builds
    assert began + waited >= second_ended + 0.6  # a quiet period after the second build


def test_variants_are_labelled_stack_settings() -> None:
    assert stack_variants([]) == {"this checkout": {}}
    parsed = stack_variants(['quiet={"MEMHIVE_RUN_SERVICES": "[\\"ingest\\"]"}', "main={}"])
    assert parsed == {"quiet": {"MEMHIVE_RUN_SERVICES": '["ingest"]'}, "main": {}}


def test_the_report_gives_each_variants_median_over_rounds() -> None:
    rows = [
        {"per_s": r, "command": c, "saved": 1, "indexed": 2, "audit": 3, "answer": a}
        for r, c, a in ((30, 20, 31), (10, 90, 99), (33, 19, 30))
    ]
    table = render({"main": rows})
    assert table.splitlines()[-1] == "| main | 30.0 | 20.0 | 1.0 | 2.0 | 3.0 | 31.0 |"


def test_the_backlog_report_gives_each_variants_median_recall_over_rounds() -> None:
    rows = [{"p50": p50, "p95": p95} for p50, p95 in ((20, 40), (90, 400), (22, 38))]
    table = backlog_render({"main": rows, "change": rows[:1]})
    assert table.splitlines()[-2:] == ["| main | 22.0 | 40.0 |", "| change | 20.0 | 40.0 |"]


def test_the_burst_table_gives_each_variants_medians() -> None:
    rows = [
        {"accepted_per_s": 300.0, "indexed": 150, "p50": 25.0, "p95": 60.0},
        {"accepted_per_s": 320.0, "indexed": 170, "p50": 27.0, "p95": 70.0},
        {"accepted_per_s": 310.0, "indexed": 160, "p50": 26.0, "p95": 65.0},
    ]
    table = burst_render({"change": rows, "main": rows[:1]})
    assert table.splitlines()[-2:] == [
        "| change | 310 | 160 | 26.0 | 65.0 |",
        "| main | 300 | 150 | 25.0 | 60.0 |",
    ]
