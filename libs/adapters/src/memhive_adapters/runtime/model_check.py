"""Before anything starts: the models the settings name can be found. A typo in
MEMHIVE_EMBEDDING__MODEL, or a reranker whose package is not installed, then stops a start in
well under a second with one line, instead of after nats-server, the streams and the
services are up (~6 s) and have to be stopped again."""

from __future__ import annotations

from memhive_settings import MemhiveSettings

from memhive_adapters.runtime.lane_builders import check_local_model


def check_models(settings: MemhiveSettings) -> None:
    """Raises ModelNotAvailable naming the setting to fix; loads no model."""
    if settings.embedding.provider != "litellm":
        check_local_model(settings.embedding.model)
    rerank = settings.query.rerank
    if rerank.model != "none" and rerank.model_dir is None:
        # Imported only with a reranker on: the check reads the package's file list.
        from memhive_adapters.rerank.splade_weights import packaged_model_dir

        packaged_model_dir(rerank.package)
