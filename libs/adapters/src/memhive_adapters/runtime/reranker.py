"""The reranker the settings ask for, or none (the default), and its document terms."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhive_ports import TermWeights
from memhive_settings import RerankSettings

if TYPE_CHECKING:  # the model's imports (numpy, onnxruntime) load only when it is on
    from memhive_adapters.rerank.splade_reranker import SpladeReranker


def open_reranker(settings: RerankSettings, threads: int = 1) -> SpladeReranker | None:
    """Raises FileNotFoundError at start-up when the model asked for is not installed: a
    reranker turned on never silently does nothing."""
    if settings.model == "none":
        return None
    from memhive_adapters.rerank.splade_reranker import SpladeReranker
    from memhive_adapters.rerank.splade_weights import packaged_model_dir

    model_dir = settings.model_dir or packaged_model_dir(settings.package)
    return SpladeReranker(model_dir, document_terms=settings.document_terms, threads=threads)


def term_weights_of(
    settings: RerankSettings, reranker: SpladeReranker | None
) -> TermWeights | None:
    """The reranker's document terms when memories keep them (`document_terms` > 0)."""
    return reranker if reranker is not None and settings.document_terms > 0 else None
