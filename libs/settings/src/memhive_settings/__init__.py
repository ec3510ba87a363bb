"""Typed settings. Only a composition root builds MemhiveSettings; libraries receive them."""

from memhive_settings.settings import (
    EmbedderSettings,
    EmbeddingSettings,
    IngestSettings,
    LexicalSettings,
    LinkClassifierSettings,
    LLMSettings,
    MemhiveSettings,
    NatsSettings,
    OidcSettings,
    QuerySettings,
    RerankSettings,
    StorageSettings,
    TelemetrySettings,
    VectorSettings,
)

__all__ = [
    "EmbedderSettings",
    "EmbeddingSettings",
    "IngestSettings",
    "LexicalSettings",
    "LinkClassifierSettings",
    "LLMSettings",
    "MemhiveSettings",
    "NatsSettings",
    "OidcSettings",
    "QuerySettings",
    "RerankSettings",
    "StorageSettings",
    "TelemetrySettings",
    "VectorSettings",
]
