"""The reranker the settings ask for, or none (the default)."""

from __future__ import annotations

from memhive_ports import Reranker
from memhive_settings import RerankSettings

from memhive_adapters.rerank.splade_reranker import SpladeReranker
from memhive_adapters.rerank.splade_weights import packaged_model_dir


def open_reranker(settings: RerankSettings, threads: int = 1) -> Reranker | None:
    """Raises FileNotFoundError at start-up when the model asked for is not installed: a
    reranker turned on never silently does nothing."""
    if settings.model == "none":
        return None
    model_dir = settings.model_dir or packaged_model_dir(settings.package)
    return SpladeReranker(model_dir, threads=threads)
