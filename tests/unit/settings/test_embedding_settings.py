import pytest
from memhive_adapters.runtime.lane_builders import (
    FP32_MINILM,
    INT8_MINILM,
    INT8_MINILM_V1,
    MPNET,
    lone_threads_for,
    threads_for,
)
from memhive_settings import MemhiveSettings
from memhive_settings.settings import EmbeddingSettings
from pydantic import ValidationError


def test_minilm_runs_one_thread_per_embedding_pass_by_default() -> None:
    # All cores per pass made saves 3x slower on a busy 2-core machine (docs/benchmarks.md).
    assert EmbeddingSettings().threads is None
    assert (
        threads_for(MemhiveSettings(), INT8_MINILM)
        == threads_for(MemhiveSettings(), FP32_MINILM)
        == 1
    )


def test_mpnet_splits_its_long_pass_in_two_unless_told_otherwise() -> None:
    # Recall p50 44 -> 28 ms, 16 clients 20 -> 30 saves/s, the same CPU (docs/benchmarks.md).
    assert threads_for(MemhiveSettings(), MPNET) == 2
    told = MemhiveSettings(embedding=EmbeddingSettings(threads=1))
    assert threads_for(told, MPNET) == 1


def test_the_environment_can_still_give_a_pass_every_core(monkeypatch) -> None:
    monkeypatch.setenv("MEMHIVE_EMBEDDING__THREADS", "0")
    from memhive_settings import MemhiveSettings

    assert MemhiveSettings().embedding.threads == 0


def test_the_runtime_is_chosen_by_a_setting(monkeypatch) -> None:
    monkeypatch.setenv("MEMHIVE_EMBEDDING__RUNTIME", "onnx")
    from memhive_settings import MemhiveSettings

    assert MemhiveSettings().embedding.runtime == "onnx"


def test_the_graph_cache_lives_in_the_data_dir_unless_set(tmp_path, monkeypatch) -> None:
    from memhive_settings import MemhiveSettings

    monkeypatch.delenv("MEMHIVE_EMBEDDING__CACHE_DIR", raising=False)
    assert MemhiveSettings(data_dir=tmp_path).model_cache_dir == tmp_path / "models"
    monkeypatch.setenv("MEMHIVE_EMBEDDING__CACHE_DIR", str(tmp_path / "shared"))
    assert MemhiveSettings(data_dir=tmp_path).model_cache_dir == tmp_path / "shared"


def test_onnxruntime_runs_the_local_model_by_default() -> None:
    # The same vectors as the NumPy pass, at ~0.6x its CPU per sentence (docs/benchmarks.md).
    assert EmbeddingSettings().runtime == "onnx"


def test_a_lone_callers_pass_takes_two_cores_where_there_are_two() -> None:
    # MiniLM int8 v1 8.4 -> 6.8 ms per LoCoMo turn on two threads (docs/benchmarks.md).
    assert EmbeddingSettings().lone_pass_threads is None
    for encoder in (INT8_MINILM_V1, FP32_MINILM):
        assert lone_threads_for(MemhiveSettings(), encoder, cores=2) == 2
        assert lone_threads_for(MemhiveSettings(), encoder, cores=8) == 2
        assert lone_threads_for(MemhiveSettings(), encoder, cores=1) == 1  # no second session
    told = MemhiveSettings(embedding=EmbeddingSettings(lone_pass_threads=4))
    assert lone_threads_for(told, INT8_MINILM_V1, cores=2) == 4


def test_the_default_encoders_pass_is_too_short_to_split_unless_told() -> None:
    # int8 v2: 5.3 ms on one thread, 5.6 on two for 2.2 ms more CPU (docs/benchmarks.md).
    assert EmbeddingSettings().model == INT8_MINILM
    assert lone_threads_for(MemhiveSettings(), INT8_MINILM, cores=2) == 1
    told = MemhiveSettings(embedding=EmbeddingSettings(lone_pass_threads=2))
    assert lone_threads_for(told, INT8_MINILM, cores=2) == 2


def test_the_lone_pass_can_be_turned_off_by_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("MEMHIVE_EMBEDDING__LONE_PASS_THREADS", "1")
    assert lone_threads_for(MemhiveSettings(), FP32_MINILM, cores=2) == 1


def test_the_backlog_runs_at_the_lowest_priority_unless_told_otherwise() -> None:
    assert EmbeddingSettings().background_niceness == 19
    assert EmbeddingSettings(background_niceness=0).background_niceness == 0
    for out_of_range in (-1, 20):
        with pytest.raises(ValidationError, match="background_niceness"):
            EmbeddingSettings(background_niceness=out_of_range)


def test_callers_passes_run_below_the_event_loop_unless_told_otherwise() -> None:
    assert EmbeddingSettings().callers_niceness == 10
    assert EmbeddingSettings(callers_niceness=0).callers_niceness == 0
    for out_of_range in (-1, 20):
        with pytest.raises(ValidationError, match="callers_niceness"):
            EmbeddingSettings(callers_niceness=out_of_range)
