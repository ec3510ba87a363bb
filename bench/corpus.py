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


PEOPLE = ["Ana", "Bilal", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun",
          "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
          "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe"]  # fmt: skip
DONE = ["moved", "fixed", "booked", "reviewed", "cancelled", "painted", "rebuilt", "ordered",
        "tested", "renamed", "archived", "planted", "measured", "borrowed", "repaired", "sold",
        "translated", "cleaned", "audited", "sketched"]  # fmt: skip
THINGS = ["the staging database", "a blue bicycle", "the quarterly budget", "the kitchen window",
          "the login page", "three oak chairs", "the spring newsletter", "the backup generator",
          "a train to Porto", "the tax forms", "the garden shed", "the onboarding guide",
          "a birthday cake", "the VPN certificate", "the school play", "the roof gutters",
          "the sales forecast", "a violin lesson", "the cache layer", "the wedding photos",
          "the dentist appointment", "the API rate limits", "a tent for the hike",
          "the old laptops", "the pricing page"]  # fmt: skip
PLACES = ["in Lisbon", "at the office", "near the river", "from home", "in the lab",
          "at the warehouse", "downtown", "at grandma's", "on the boat", "in the cloud console",
          "at the library", "in Osaka"]  # fmt: skip
TIMES = ["on Monday", "last night", "before lunch", "in March", "after the storm",
         "this weekend", "at dawn", "during the outage", "next to the deadline", "two days ago"]  # fmt: skip
NOTE_SHAPES = [
    "{who} {done} {thing} {place} {time}",
    "Remember: {thing} was {done} by {who} {time}",
    "{time}, {who} said {thing} still needs to be {done} {place}",
    "Decision {place}: {thing} gets {done}; owner {who}",
    "{who} prefers that {thing} is {done} {time}",
]


def distinct_notes(count: int, seed: int = 11) -> list[str]:
    """Memories as agents save them, on many subjects: unlike the probes' one sentence with
    a counter, most have no near-duplicate (measured: of 1,000, the nearest neighbour's
    cosine is 0.76 at the median, and 9% have one at or above 0.85)."""
    rng = random.Random(seed)
    return [
        rng.choice(NOTE_SHAPES).format(
            who=rng.choice(PEOPLE),
            done=rng.choice(DONE),
            thing=rng.choice(THINGS),
            place=rng.choice(PLACES),
            time=rng.choice(TIMES),
        )
        + f" [{rng.randrange(10**6):06d}]"
        for _ in range(count)
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
