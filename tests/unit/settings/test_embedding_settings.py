from memhive_settings.settings import EmbeddingSettings


def test_one_blas_thread_per_embedding_pass_by_default() -> None:
    # All cores per pass made saves 3x slower on a busy 2-core machine (docs/benchmarks.md).
    assert EmbeddingSettings().threads == 1


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
