"""A synthetic but varied corpus of engineering memories for load benchmarks.

Bodies are unique; vectors come from the real model for a few thousand distinct base
sentences, each reused with a little noise, so loading 100k memories does not spend
ten minutes embedding on a 2-core machine. What is measured (index size, search cost,
HTTP, hydration) does not depend on how the vectors were made.
"""

from __future__ import annotations

import itertools
import random

import numpy as np

TEAMS = [
    "billing",
    "mobile",
    "platform",
    "search",
    "growth",
    "infra",
    "data",
    "security",
    "web",
    "payments",
]
ACTIONS = [
    "migrate",
    "deprecate",
    "rewrite",
    "cache",
    "shard",
    "monitor",
    "load test",
    "document",
    "split",
    "harden",
]
COMPONENTS = [
    "the checkout API",
    "the iOS app",
    "the event pipeline",
    "the Postgres cluster",
    "the search index",
    "the auth service",
    "the CI runners",
    "the feature flags",
    "the release train",
    "the on-call rota",
]
WHEN = [
    "before the Q3 launch",
    "after the freeze",
    "every second Tuesday",
    "by end of month",
    "next sprint",
    "once the audit is done",
    "during the maintenance window",
    "before the board meeting",
]


def base_sentences(count: int, seed: int = 7) -> list[str]:
    combos = list(itertools.product(TEAMS, ACTIONS, COMPONENTS, WHEN))
    random.Random(seed).shuffle(combos)
    return [f"The {t} team will {a} {c} {w}" for t, a, c, w in combos[:count]]


def noisy(vector: np.ndarray, rng: np.random.Generator, scale: float = 0.02) -> list[float]:
    v = vector + rng.normal(0, scale, vector.shape).astype(np.float32)
    return (v / np.linalg.norm(v)).tolist()


def default_encoder():
    """The encoder memhive's lanes use by default, to embed what a bench sends as a hook
    would (with vectors of the lanes' own encoder, so memhive does not embed them again)."""
    from memhive_adapters.embedding.onnx_minilm import VARIANTS, OnnxMiniLmEmbedder
    from memhive_settings import MemhiveSettings

    settings = MemhiveSettings()
    variant = VARIANTS[settings.embedding.model]
    return OnnxMiniLmEmbedder(settings.model_cache_dir, variant=variant)
