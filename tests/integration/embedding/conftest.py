from __future__ import annotations

import pytest
from memhive_adapters.embedding.minilm import MiniLmEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLmEmbedder:
    return MiniLmEmbedder()
