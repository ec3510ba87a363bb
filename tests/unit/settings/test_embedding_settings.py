from memhive_settings.settings import EmbeddingSettings


def test_one_blas_thread_per_embedding_pass_by_default() -> None:
    # All cores per pass made saves 3x slower on a busy 2-core machine (docs/benchmarks.md).
    assert EmbeddingSettings().threads == 1


def test_the_environment_can_still_give_a_pass_every_core(monkeypatch) -> None:
    monkeypatch.setenv("MEMHIVE_EMBEDDING__THREADS", "0")
    from memhive_settings import MemhiveSettings

    assert MemhiveSettings().embedding.threads == 0
