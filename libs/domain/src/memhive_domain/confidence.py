"""How likely a recalled memory is to answer the query: a calibrated `confidence` in [0, 1]
per result, so an agent can tell "nothing relevant is stored" from "here is the answer".

Fused scores cannot say it: they are scaled within each query, so the best of six
unrelated memories still scores 1. Two signals that do not depend on the other
candidates can: the query's cosine similarity to the memory (the vector lane's raw score)
and the share of the query's content words the memory contains. They are combined by a
logistic model fitted on LoCoMo's public split (every returned result of every question,
labelled by the gold evidence: `python -m bench.confidence_fit`), so a confidence of 0.3
means about 3 in 10 such results were evidence there. Checked on a fixture of our own
with no answer in the store (`python -m bench.unanswerable`).

The model is fitted per encoder: each spreads its cosines a little differently (int8's
vectors agree with fp32's to a median cosine of 0.995, not 1), so one encoder's weights
would read another's results at another rate. An encoder with no fit of its own (a litellm model)
gets fp32 MiniLM's, the best guess there is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from memhive_domain.question_words import QUESTION_STOPWORDS

# What an agent (MCP) and a person searching the dashboard get by default: results with
# some chance of answering (the REST default, 0, returns everything). On LoCoMo this floor
# costs recall@5 no more than 0.005 while an unrelated question gets nothing back
# (docs/benchmarks.md).
DEFAULT_MIN_CONFIDENCE = 0.01


@dataclass(frozen=True, slots=True)
class Calibration:
    """The logistic model's weights for one encoder's cosines."""

    intercept: float
    similarity_weight: float
    coverage_weight: float

    def confidence(self, similarity: float, coverage: float) -> float:
        """similarity: cosine of query and memory (-1..1); coverage: query_coverage."""
        z = self.intercept + self.similarity_weight * similarity + self.coverage_weight * coverage
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by `python -m bench.confidence_fit --encoder NAME` (logistic regression on the same
# LoCoMo results, docs/benchmarks.md), one per encoder the embedding settings name.
FP32 = Calibration(intercept=-5.39, similarity_weight=2.09, coverage_weight=3.86)
CALIBRATIONS: Mapping[str, Calibration] = {
    "all-MiniLM-L6-v2": FP32,
    "all-MiniLM-L6-v2/int8-per-text-v1": Calibration(-5.46, 2.25, 3.82),
    "all-MiniLM-L6-v2/int8-per-text-v2": Calibration(-5.42, 2.17, 3.84),
    "all-mpnet-base-v2": Calibration(-5.44, 2.95, 3.60),
}


def calibration_for(encoder: str) -> Calibration:
    return CALIBRATIONS.get(encoder, FP32)


_WORD = re.compile(r"\w+")
_STOP = frozenset(QUESTION_STOPWORDS)
_SUFFIXES = ("ing", "ed", "es", "s")


def content_words(text: str) -> set[str]:
    """Lowercased words that are not question words, with plural and tense endings cut
    ("painted", "paints" -> "paint"), so a query and a memory meet halfway."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


@dataclass(frozen=True, slots=True)
class QueryWords:
    """A query's content words, read once per recall, and every inflection of each
    ("paint": paint, paints, painted, painting), so a body is matched by splitting it into
    words once (in C) and looking them up, never by stemming it word by word in Python."""

    stems: frozenset[str]
    forms: Mapping[str, str]  # an inflected form -> its stem

    @classmethod
    def of(cls, query: str) -> QueryWords:
        stems = frozenset(content_words(query))
        forms = {stem + end: stem for stem in stems for end in ("", *_SUFFIXES)}
        return cls(stems, forms)

    def coverage(self, body: str) -> float:
        """The share of the query's content words the body contains (0 if it has none)."""
        if not self.stems:
            return 0.0
        words = set(_WORD.findall(body.lower()))
        return len({self.forms[w] for w in words & self.forms.keys()}) / len(self.stems)


def query_coverage(query: str, body: str) -> float:
    return QueryWords.of(query).coverage(body)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
