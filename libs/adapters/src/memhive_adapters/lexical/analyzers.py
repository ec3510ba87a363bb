"""The text analyzers the tantivy lane can index memory bodies with.

The default is chosen by measurement on the public LoCoMo split (`python -m
bench.lane_quality`, 383 questions, R@5 overall): plain 0.473, stemmed_en 0.525,
stemmed_en_stopwords 0.507, folded_stemmed_en 0.525 (the reference BM25 baseline,
stop words and no stemming, is 0.513). Removing English stop words from the index lowered
R@5 here, so documents keep them; queries drop question words (QUESTION_STOPWORDS).
"""

from __future__ import annotations

from collections.abc import Callable

import tantivy
from memhive_domain.question_words import QUESTION_STOPWORDS

# Tokens longer than this are base64, hashes or URLs glued together: noise for BM25.
MAX_TOKEN_CHARS = 40


def plain() -> tantivy.TextAnalyzer:
    """tantivy's default: split on non-alphanumerics, drop long tokens, lowercase."""
    return _simple().build()


def stemmed_en() -> tantivy.TextAnalyzer:
    return _simple().filter(tantivy.Filter.stemmer("english")).build()


def stemmed_en_stopwords() -> tantivy.TextAnalyzer:
    builder = _simple().filter(tantivy.Filter.stopword("english"))
    return builder.filter(tantivy.Filter.stemmer("english")).build()


def folded_stemmed_en() -> tantivy.TextAnalyzer:
    builder = _simple().filter(tantivy.Filter.ascii_fold())
    return builder.filter(tantivy.Filter.stemmer("english")).build()


def _simple() -> tantivy.TextAnalyzerBuilder:
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    builder = builder.filter(tantivy.Filter.remove_long(MAX_TOKEN_CHARS))
    return builder.filter(tantivy.Filter.lowercase())


def query_analyzer(index_analyzer: str) -> tantivy.TextAnalyzer:
    """The index analyzer's pipeline with question stop words dropped before stemming."""
    builder = _simple()
    if index_analyzer == "folded_stemmed_en":
        builder = builder.filter(tantivy.Filter.ascii_fold())
    builder = builder.filter(tantivy.Filter.custom_stopword(list(QUESTION_STOPWORDS)))
    if index_analyzer != "plain":
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


ANALYZERS: dict[str, Callable[[], tantivy.TextAnalyzer]] = {
    "plain": plain,
    "stemmed_en": stemmed_en,
    "stemmed_en_stopwords": stemmed_en_stopwords,
    "folded_stemmed_en": folded_stemmed_en,
}
DEFAULT_ANALYZER = "stemmed_en"
