"""Build the embedder and the two lane engines of one lane generation from settings.

Generation 0 is where the lanes always lived (`<data_dir>/qdrant-edge`, `<data_dir>/tantivy`,
the configured collection and index); a reindex builds generation N beside it
(`<data_dir>/qdrant-edge.gen-N`, `<collection>-gen-N`, ...), so the two never share a path.
"""

from __future__ import annotations

import os
from pathlib import Path

from memhive_ports import Embedder, LexicalIndex, VectorIndex
from memhive_ports.embedder import ModelNotAvailable
from memhive_settings import MemhiveSettings

from memhive_adapters.free_space import FreeSpace

# The local encoders (onnx_minilm.VARIANTS, named here so choosing one imports nothing).
FP32_MINILM = "all-MiniLM-L6-v2"
INT8_MINILM = "all-MiniLM-L6-v2/int8-per-text-v2"  # the default
INT8_MINILM_V1 = "all-MiniLM-L6-v2/int8-per-text-v1"
MPNET = "all-mpnet-base-v2"  # optional: its weights are five packages of their own
LOCAL_MODELS = (FP32_MINILM, INT8_MINILM, INT8_MINILM_V1, MPNET)
# Threads per pass unless the settings name them: MiniLM's pass is too short to split
# on two busy cores; MPNet's splits well (docs/benchmarks.md, "A stronger encoder").
THREADS = {MPNET: 2}
# A lone caller's pass on more threads than THREADS unless the settings say: two where
# there are two cores, but int8 v2's pass (~5 ms a LoCoMo turn) is too short to split:
# on two threads it took 5.6 against 5.3 ms, for 7.6 against 5.3 ms of CPU
# (docs/benchmarks.md, "7-bit weights").
LONE_THREADS = {INT8_MINILM: 1}


def threads_for(settings: MemhiveSettings, encoder: str) -> int:
    chosen = settings.embedding.threads
    return THREADS.get(encoder, 1) if chosen is None else chosen


def lone_threads_for(settings: MemhiveSettings, encoder: str, cores: int | None = None) -> int:
    """Threads for a lone caller's pass: the encoder's own, else two cores' worth, unless
    the settings say (1: no second session)."""
    chosen = settings.embedding.lone_pass_threads
    if chosen is not None:
        return chosen
    return LONE_THREADS.get(encoder, min(2, cores or len(os.sched_getaffinity(0))))


def vector_dir_of(settings: MemhiveSettings, generation: int) -> Path:
    return _generation_path(settings.vector_dir, generation)


def lexical_dir_of(settings: MemhiveSettings, generation: int) -> Path:
    return _generation_path(settings.lexical_dir, generation)


def _generation_path(base: Path, generation: int) -> Path:
    return base if generation == 0 else base.with_name(f"{base.name}.gen-{generation}")


def _generation_name(base: str, generation: int) -> str:
    return base if generation == 0 else f"{base}-gen-{generation}"


def build_embedder(settings: MemhiveSettings, model: str | None = None) -> Embedder:
    embedding = settings.embedding
    model = model or embedding.model
    if embedding.provider == "litellm":
        from memhive_adapters.embedding.litellm_embedder import LiteLlmEmbedder

        if embedding.dimensions is None:
            raise ValueError("MEMHIVE_EMBEDDING__DIMENSIONS is required with provider=litellm")
        key = embedding.api_key.get_secret_value() if embedding.api_key else None
        return LiteLlmEmbedder(model, embedding.dimensions, embedding.api_base, key)
    check_local_model(model)
    return _local_embedder(settings, model)


def check_local_model(model: str) -> None:
    if model not in LOCAL_MODELS:
        raise ModelNotAvailable(
            f"the local embedding provider has {list(LOCAL_MODELS)}, not {model!r}"
            " (MEMHIVE_EMBEDDING__MODEL)"
        )


def _local_embedder(settings: MemhiveSettings, encoder: str) -> Embedder:
    # Imported here, not at the top: `memhive --help` must not load onnxruntime or NumPy.
    threads = threads_for(settings, encoder)
    if settings.embedding.runtime == "numpy" and encoder == FP32_MINILM:
        from memhive_adapters.embedding.minilm import MiniLmEmbedder

        return MiniLmEmbedder(threads=threads)
    from memhive_adapters.embedding.onnx_minilm import VARIANTS, OnnxMiniLmEmbedder

    variant = VARIANTS[encoder]
    lone = lone_threads_for(settings, encoder)
    return OnnxMiniLmEmbedder(
        settings.model_cache_dir,
        threads=threads,
        variant=variant,
        lone_threads=lone,
        background_niceness=settings.embedding.background_niceness,
        callers_niceness=settings.embedding.callers_niceness,
    )


def build_vector_index(
    settings: MemhiveSettings,
    embedder: Embedder,
    generation: int = 0,
    space: FreeSpace | None = None,
) -> VectorIndex:
    vector = settings.vector
    if vector.backend == "qdrant":
        from memhive_adapters.vector.qdrant_index import QdrantVectorIndex

        if not vector.url:
            raise ValueError("MEMHIVE_VECTOR__URL is required with backend=qdrant")
        key = vector.api_key.get_secret_value() if vector.api_key else None
        collection = _generation_name(vector.collection, generation)
        return QdrantVectorIndex.from_url(vector.url, key, collection, embedder.dimensions)
    from memhive_adapters.vector.edge_index import EdgeVectorIndex

    return EdgeVectorIndex(
        vector_dir_of(settings, generation),
        embedder.dimensions,
        hnsw_after=vector.hnsw_after,
        search_threads=vector.search_threads or None,
        hnsw_when_idle=vector.hnsw_when_idle,
        idle_s=vector.hnsw_idle_s,
        space=space,
        int8=vector.vectors == "int8",
    )


def build_lexical_index(
    settings: MemhiveSettings, generation: int = 0, space: FreeSpace | None = None
) -> LexicalIndex:
    lexical = settings.lexical
    if lexical.backend == "opensearch":
        from memhive_adapters.lexical.opensearch_index import OpenSearchLexicalIndex

        if not lexical.url:
            raise ValueError("MEMHIVE_LEXICAL__URL is required with backend=opensearch")
        password = lexical.password.get_secret_value() if lexical.password else None
        return OpenSearchLexicalIndex.from_settings(
            lexical.url,
            lexical.username,
            password,
            lexical.verify_certs,
            _generation_name(lexical.index, generation),
        )
    from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex

    return TantivyLexicalIndex(
        lexical_dir_of(settings, generation),
        commit_interval_s=lexical.commit_interval_s,
        commit_max_writes=lexical.commit_max_writes,
        space=space,
    )
