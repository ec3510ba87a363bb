"""English question words: dropped from BM25 queries (never from documents) by both lexical
backends, and left out when recall measures how much of a query a memory covers."""

from __future__ import annotations

import re

# Function words of English questions (NLTK's English list, the one the LoCoMo BM25
# baseline uses, minus contractions). Dropped from QUERIES only: documents keep them, so a
# query made only of them still falls back to the index analyzer. Measured on LoCoMo
# (bench.fusion_study): BM25 lane R@5 0.525 -> 0.551, temporal 0.772 -> 0.850.
QUESTION_STOPWORDS = tuple(
    """a an the and or but if of at by for with about against between into through during
    before after above below to from up down in out on off over under again further
    then once here there when where why how all any both each few more most other some
    such no nor not only own same so than too very s t can will just don should now i
    me my myself we our ours you your he him his she her it its they them their what
    which who whom this that these those am is are was were be been being have has had
    having do does did doing would could""".split()  # noqa: SIM905 (reads better as text)
)


def has_content_words(text: str) -> bool:
    """False when every word of `text` is a question word: search it unfiltered then."""
    words = re.findall(r"\w+", text.lower())
    return any(w not in _STOP_SET for w in words)


_STOP_SET = frozenset(QUESTION_STOPWORDS)
