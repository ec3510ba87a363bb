"""Lane generations on disk: the pointer file and sweeping generations that are not current."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhive_adapters.lane_conditions import LAYOUT
from memhive_adapters.runtime.lane_generations import (
    POINTER_FILE,
    GenerationPointer,
    GenerationSpec,
    LaneGenerations,
)
from memhive_ports.embedder import ModelNotAvailable
from memhive_settings import MemhiveSettings

INT8 = "all-MiniLM-L6-v2/int8-per-text-v2"


def test_without_a_pointer_generation_zero_with_the_configured_model_is_current(
    tmp_path: Path,
) -> None:
    settings = MemhiveSettings(data_dir=tmp_path, embedding={"model": INT8})
    generations = LaneGenerations(settings)
    assert generations.current_spec() == GenerationSpec(0, INT8, LAYOUT)
    assert generations.next_spec() == GenerationSpec(1, INT8, LAYOUT)
    assert generations.next_spec("other") == GenerationSpec(1, "other", LAYOUT)


def test_lanes_on_disk_without_a_pointer_are_of_the_first_layout_and_fp32(tmp_path: Path) -> None:
    (tmp_path / "tantivy").mkdir()
    (tmp_path / "tantivy" / "meta.json").write_text("{}")
    generations = LaneGenerations(MemhiveSettings(data_dir=tmp_path, embedding={"model": INT8}))

    # The only local encoder before lanes recorded theirs: the store migrates from it.
    assert generations.current_spec() == GenerationSpec(0, "all-MiniLM-L6-v2", 1)
    assert generations.configured == INT8


def test_server_lanes_without_a_pointer_on_the_bus_are_taken_as_fp32(tmp_path: Path) -> None:
    settings = MemhiveSettings(
        data_dir=tmp_path, vector={"backend": "qdrant"}, embedding={"model": INT8}
    )
    assert LaneGenerations(settings).current_spec() == GenerationSpec(0, "all-MiniLM-L6-v2", LAYOUT)


def test_the_layout_of_fresh_lanes_is_recorded_once(tmp_path: Path) -> None:
    generations = LaneGenerations(MemhiveSettings(data_dir=tmp_path))
    fresh = generations.current_spec()
    generations.record(fresh)
    (tmp_path / "tantivy").mkdir()
    (tmp_path / "tantivy" / "meta.json").write_text("{}")

    assert generations.current_spec() == fresh  # the files no longer make it look old
    generations.record(GenerationSpec(0, "all-MiniLM-L6-v2", 1))
    assert GenerationPointer(tmp_path / POINTER_FILE).read() == fresh  # never overwritten


def test_the_pointer_is_replaced_whole_and_read_back(tmp_path: Path) -> None:
    pointer = GenerationPointer(tmp_path / POINTER_FILE)
    pointer.write(GenerationSpec(3, "m"))
    pointer.write(GenerationSpec(4, "n", 7))
    assert pointer.read() == GenerationSpec(4, "n", 7)
    assert [p.name for p in tmp_path.iterdir()] == [POINTER_FILE]  # no staging file left


def test_a_pointer_written_before_layouts_reads_as_the_first(tmp_path: Path) -> None:
    (tmp_path / POINTER_FILE).write_text('{"generation": 2, "embedding_model": "m"}')
    assert GenerationPointer(tmp_path / POINTER_FILE).read() == GenerationSpec(2, "m", 1)


def test_sweep_drops_every_generation_but_the_current_one(tmp_path: Path) -> None:
    settings = MemhiveSettings(data_dir=tmp_path)
    generations = LaneGenerations(settings)
    for name in (
        "qdrant-edge",
        "tantivy",
        "qdrant-edge.gen-1",
        "tantivy.gen-1",
        "qdrant-edge.gen-2",
        "tantivy.gen-2",
        "nats",
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "data").write_text("x")
    generations.commit(GenerationSpec(1, "all-MiniLM-L6-v2"))

    assert generations.sweep() == [0, 2]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["lanes.json", "nats", "qdrant-edge.gen-1", "tantivy.gen-1"]


def test_an_unknown_local_model_is_refused(tmp_path: Path) -> None:
    generations = LaneGenerations(MemhiveSettings(data_dir=tmp_path))
    with pytest.raises(ModelNotAvailable, match="not 'no-such-model'"):
        generations.build(GenerationSpec(1, "no-such-model"))
