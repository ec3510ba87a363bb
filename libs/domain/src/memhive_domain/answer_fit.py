"""How well a memory fits what a question asks for, beyond sharing its words: who it is
about, and the kind of answer it holds.

- **Its subject.** A question about Melanie ("What does Melanie do to destress?") is
  answered by what Melanie says or what is said about her, not by a reply that only
  addresses her ("Thanks, Melanie!"), though both share the name. On LoCoMo 95% of the
  evidence of a question naming one person is said by that person, against 61% of the
  other memories in the top 5.
- **The kind of answer.** A "when" question is answered by a memory that states a time
  ("yesterday", "last May", "since I was a kid"): 86% of LoCoMo's temporal evidence does,
  against 24% of the other candidates.
- **A question is not an answer.** A memory that asks ("What pets do you have?") shares
  the question's words but seldom holds what it asks for: 17% of LoCoMo's evidence asks,
  against 33% of the other memories in the top 5. It scores (1 - penalty) x; its reply
  gains from it instead (`neighbours.py`).

Both read what was extracted at write time (`mentions.py`), so they cost a set lookup per
candidate. Measured in docs/benchmarks.md ("Recall past 0.70").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from memhive_domain.fusion import FusedHit
from memhive_domain.mentions import Mentions

# A memory by or about a person the question names scores (1 + this) x.
DEFAULT_SUBJECT_BOOST = 0.5
# A memory stating a time scores (1 + this) x for a question asking when.
DEFAULT_DATED_BOOST = 1.0
# A memory that asks a question scores (1 - this) x.
DEFAULT_QUESTION_PENALTY = 0.3
_ASKS_WHEN = re.compile(
    r"^\W*(?:when|what (?:year|month|date|day|time|week)|how long ago|since when)\b",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether the question asks for a time ("When did ...", "What year ...")."""
    return _ASKS_WHEN.search(query) is not None


def favour_fitting(
    hits: Sequence[FusedHit],
    mentions: Mapping[str, Mentions],
    *,
    names: frozenset[str],
    wants_time: bool,
    subject_boost: float = DEFAULT_SUBJECT_BOOST,
    dated_boost: float = DEFAULT_DATED_BOOST,
    question_penalty: float = DEFAULT_QUESTION_PENALTY,
) -> list[FusedHit]:
    """The hits, each about a named person or stating a time a when-question asks for
    raised by its boost, each asking a question lowered, best first. Hits with no
    mentions are left as they are."""
    weights = _Weights(subject_boost, dated_boost, question_penalty)
    fitted = [_fitted(h, mentions.get(h.memory_id), names, wants_time, weights) for h in hits]
    return sorted(fitted, key=lambda h: (-h.score, h.memory_id))


@dataclass(frozen=True, slots=True)
class _Weights:
    subject_boost: float
    dated_boost: float
    question_penalty: float


def _fitted(
    hit: FusedHit, said: Mentions | None, names: frozenset[str], wants_time: bool, w: _Weights
) -> FusedHit:
    if said is None:
        return hit
    factor = (1 + w.subject_boost) if names and said.is_about(names) else 1.0
    factor *= (1 + w.dated_boost) if wants_time and said.dated else 1.0
    factor *= (1 - w.question_penalty) if said.asks else 1.0
    return hit if factor == 1.0 else replace(hit, score=hit.score * factor)
