"""Every ranking variant bench.quality_study scores (issue 15), kept or not: each is an
async function from a question (with its lanes' candidates) to a ranked list of ids.

Kept rules come from the domain (`ranking.in_context`, `query_time`, `neighbours`); the
ones that did not pay are written here, as small as they can be, so their figures in
docs/benchmarks.md can be reproduced.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import replace
from typing import Any

import tantivy
from memhive_adapters.lexical.analyzers import ANALYZERS
from memhive_adapters.lexical.tantivy_index import (
    TantivyLexicalIndex,
    _filter_query,
    _stored_id,
)
from memhive_domain.fusion import fuse_relative_scores
from memhive_domain.neighbours import thread_position
from memhive_domain.query_time import times_named, without_times
from memhive_domain.question_words import QUESTION_STOPWORDS
from memhive_domain.ranking import in_context

from bench.study_lanes import NOW, POOL, Question, Study, Variant, cached_vectors

Lanes = dict[str, list[tuple[str, float]]]
_WHEN = re.compile(r"^\s*(when|what (year|month|date|day|time)|how long ago)\b", re.IGNORECASE)
_NAME = re.compile(r"(?<!^)(?<![.?!] )\b([A-Z][a-z]+)")
_STOP = frozenset(QUESTION_STOPWORDS)
Should, Must = tantivy.Occur.Should, tantivy.Occur.Must


def ids(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda i: (-scores[i], i))


def fused(lanes: Lanes, lexical: float) -> dict[str, float]:
    hits = fuse_relative_scores(lanes, weights={"vector": 1.0, "lexical": lexical})
    return {h.memory_id: h.score for h in hits}


def only(lane: str) -> Variant:
    async def ranked(q: Question, study: Study) -> list[str]:
        return [i for i, _ in q.lanes[lane]]

    return ranked


async def oracle(q: Question, study: Study) -> list[str]:
    """Every gold candidate either lane found, first: the ceiling of any re-ranking."""
    found = {i for hits in q.lanes.values() for i, _ in hits}
    return sorted(q.gold & found) + sorted(found - q.gold)


def default(lexical: float = 3.0, share: float = 0.5, boost: float = 2.0) -> Variant:
    """The ranking recall uses, from the domain: fusion, then neighbours and named times."""

    async def ranked(q: Question, study: Study) -> list[str]:
        hits = fuse_relative_scores(q.lanes, weights={"vector": 1.0, "lexical": lexical})
        named = [n.range for n in times_named(q.text, NOW)]
        hits = in_context(
            hits, study.memories, named_times=named, neighbour_share=share, time_boost=boost
        )
        return [h.memory_id for h in hits]

    return ranked


# --- neighbour context -----------------------------------------------------------------


def neighbour_ids(study: Study, memory_id: str, offsets=(-1, 1)) -> list[str]:
    if not hasattr(study, "by_position"):
        study.by_position = {thread_position(m.source_ref): i for i, m in study.memories.items()}
    prefix, number = thread_position(study.memories[memory_id].source_ref)
    found = (study.by_position.get((prefix, number + o)) for o in offsets)
    return [i for i in found if i is not None]


def smoothing(
    share: float, lexical: float = 1.5, boost: float = 0.0, combine: Any = max, when: float = 0
) -> Variant:
    """Each candidate gains share x combine(its candidate neighbours' fused scores)."""

    async def ranked(q: Question, study: Study) -> list[str]:
        weight = when if when and _WHEN.search(q.text) else lexical
        scores = fused(q.lanes, weight)
        raised = {
            i: s
            + share * combine([scores[n] for n in neighbour_ids(study, i) if n in scores] or [0])
            for i, s in scores.items()
        }
        return ids(boosted(raised, q, study, boost))

    return ranked


def reaching(
    share: float, decay: float, reach: int = 2, lexical: float = 3.0, thread: float = 0.0
) -> Variant:
    """Neighbours up to `reach` places away, each place further at `decay` x; `thread`: every
    candidate also gains that share of the best score in its thread (same ref prefix)."""

    async def ranked(q: Question, study: Study) -> list[str]:
        scores = fused(q.lanes, lexical)
        best: dict[str, float] = defaultdict(float)
        for i, s in scores.items():
            prefix = thread_position(study.memories[i].source_ref)[0]
            best[prefix] = max(best[prefix], s)
        raised = {}
        for i, s in scores.items():
            near = [
                decay ** (d - 1) * scores[n]
                for d in range(1, reach + 1)
                for n in neighbour_ids(study, i, (-d, d))
                if n in scores
            ]
            prefix = thread_position(study.memories[i].source_ref)[0]
            raised[i] = s + share * max(near or [0]) + thread * best[prefix]
        return ids(boosted(raised, q, study, 2.0))

    return ranked


def directional(after: float, before: float, lexical: float = 3.0, boost: float = 1.0) -> Variant:
    """A turn gains `after` x the score of the turn before it, `before` x the one after."""

    async def ranked(q: Question, study: Study) -> list[str]:
        scores = fused(q.lanes, lexical)
        raised = {}
        for i, s in scores.items():
            prev, nxt = (neighbour_ids(study, i, (o,)) for o in (-1, 1))
            raised[i] = s + after * sum(scores.get(p, 0) for p in prev)
            raised[i] += before * sum(scores.get(n, 0) for n in nxt)
        return ids(boosted(raised, q, study, boost))

    return ranked


def lane_smoothing(lexical_share: float, vector_share: float, lexical: float, reach: int = 1):
    """Smoothing inside each lane (min-max scaled) before the weighted sum."""

    async def ranked(q: Question, study: Study) -> list[str]:
        total: dict[str, float] = defaultdict(float)
        for lane, hits in q.lanes.items():
            share = lexical_share if lane == "lexical" else vector_share
            best, worst = hits[0][1], hits[-1][1]
            scaled = {i: (s - worst) / (best - worst) if best > worst else 1.0 for i, s in hits}
            for i, s in scaled.items():
                near = [
                    0.5 ** (d - 1) * scaled.get(n, 0.0)
                    for d in range(1, reach + 1)
                    for n in neighbour_ids(study, i, (-d, d))
                ]
                total[i] += (lexical if lane == "lexical" else 1.0) * (s + share * max(near or [0]))
        return ids(boosted(total, q, study, 2.0))

    return ranked


def fetched_neighbours(top: int, share: float) -> Variant:
    """The neighbours of the top hits are fetched (even if no lane found them) and placed
    at share x the hit's score."""

    async def ranked(q: Question, study: Study) -> list[str]:
        scores = fused(q.lanes, 1.5)
        for i in ids(scores)[:top]:
            for n in neighbour_ids(study, i):
                scores[n] = max(scores.get(n, 0.0), share * scores[i])
        return ids(scores)

    return ranked


# --- time ------------------------------------------------------------------------------


def boosted(scores: dict[str, float], q: Question, study: Study, boost: float) -> dict[str, float]:
    named = [n.range for n in times_named(q.text, NOW)]
    if not boost or not named:
        return scores
    inside = {i for i in scores if any(r.holds(study.memories[i].occurred) for r in named)}
    return {i: s * (1 + boost) if i in inside else s for i, s in scores.items()}


def time_boost(boost: float, window_search: bool = False, strip: bool = False) -> Variant:
    """Named times boost; optionally one more BM25 search inside the named window (more
    candidates of that time), optionally the dates cut from the BM25 query."""

    async def ranked(q: Question, study: Study) -> list[str]:
        named = times_named(q.text, NOW)
        lanes = dict(q.lanes)
        text = without_times(q.text, named) if strip and named else q.text
        if text != q.text:
            lanes["lexical"] = pairs(await study.lexical.search(text, q.scope, POOL))
        if window_search and named:
            window = replace(q.scope, occurred=named[0].range)
            extra = pairs(await study.lexical.search(text, window, POOL))
            merged = dict(lanes["lexical"]) | {i: s for i, s in extra if i not in lanes["lexical"]}
            lanes["lexical"] = sorted(merged.items(), key=lambda x: -x[1])
        return ids(boosted(fused(lanes, 1.5), q, study, boost))

    return ranked


def pairs(hits) -> list[tuple[str, float]]:
    return [(h.memory_id, h.score) for h in hits]


# --- query-dependent weights and score normalisation ----------------------------------


def when_weight(lexical: float) -> Variant:
    """ "When ..." questions ask for the time of an event named by its own words: BM25 x."""

    async def ranked(q: Question, study: Study) -> list[str]:
        return ids(fused(q.lanes, lexical if _WHEN.search(q.text) else 1.5))

    return ranked


def digit_weight(lexical: float) -> Variant:
    async def ranked(q: Question, study: Study) -> list[str]:
        return ids(fused(q.lanes, lexical if re.search(r"\d", q.text) else 1.5))

    return ranked


def spread_weights(share: float = 0.0) -> Variant:
    """Each lane weighted by how far its best hit stands above its next five."""

    async def ranked(q: Question, study: Study) -> list[str]:
        weights = {"vector": 1.0, "lexical": 1.5}
        for lane, hits in q.lanes.items():
            s = [x for _, x in hits]
            weights[lane] *= (s[0] - sum(s[1:6]) / 5) / (abs(s[0]) or 1.0) * 10
        scores = {h.memory_id: h.score for h in fuse_relative_scores(q.lanes, weights=weights)}
        raised = {
            i: v + share * max([scores[n] for n in neighbour_ids(study, i) if n in scores] or [0])
            for i, v in scores.items()
        }
        return ids(boosted(raised, q, study, 2.0 if share else 0.0))

    return ranked


def zscore(lexical: float) -> Variant:
    async def ranked(q: Question, study: Study) -> list[str]:
        total: dict[str, float] = defaultdict(float)
        for lane, hits in q.lanes.items():
            scores = [s for _, s in hits]
            mean = sum(scores) / len(scores)
            sd = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5 or 1.0
            for i, s in hits:
                total[i] += (lexical if lane == "lexical" else 1.0) * (s - min(scores)) / sd
        return ids(total)

    return ranked


def deeper(pool: int, variant: Variant) -> Variant:
    async def ranked(q: Question, study: Study) -> list[str]:
        return await variant(replace(q, pool=pool), study)

    return ranked


# --- query rewriting: pseudo-relevance feedback, name boosts, the vector query ----------


def bm25(study: Study, q: Question, boosts: dict[str, float]) -> list[tuple[str, float]]:
    """One tantivy query of weighted terms, the question's filter pushed down."""
    index = study.lexical._index
    clauses = []
    for term, weight in sorted(boosts.items()):
        query = tantivy.Query.term_query(index.schema, "body", term)
        clauses.append((Should, query if weight == 1 else tantivy.Query.boost_query(query, weight)))
    allowed = tantivy.Query.const_score_query(_filter_query(index, q.scope), 0.0)
    query = tantivy.Query.boolean_query(
        [(Must, tantivy.Query.boolean_query(clauses)), (Must, allowed)]
    )
    searcher = index.searcher()
    return [(_stored_id(searcher, a), s) for s, a in searcher.search(query, POOL).hits]


def query_terms(study: Study, text: str) -> set[str]:
    return set(study.lexical._query_analyzer.analyze(text))


def prf(feedback: int, terms: int, weight: float) -> Variant:
    """RM3-like: the top `feedback` fused hits' words, by tf/len x fused score x idf; the
    best `terms` of them added to the BM25 query at `weight`; then fused again."""

    async def ranked(q: Question, study: Study) -> list[str]:
        first = fused(q.lanes, 1.5)
        top = ids(first)[:feedback]
        searcher, own = study.lexical._index.searcher(), query_terms(study, q.text)
        weights: dict[str, float] = defaultdict(float)
        for i in top:
            words = study.lexical._analyzer.analyze(study.memories[i].body)
            for w in set(words) - own - _STOP:
                if len(w) >= 3 and not w.isdigit():
                    weights[w] += words.count(w) / len(words) * first[i] / first[top[0]]
        for w in weights:
            df = searcher.doc_freq("body", w)
            weights[w] *= math.log(1 + (searcher.num_docs - df + 0.5) / (df + 0.5))
        chosen = sorted(weights, key=lambda w: -weights[w])[:terms]
        boosts = {t: 1.0 for t in own} | {t: weight for t in chosen}
        return ids(fused({"vector": q.lanes["vector"], "lexical": bm25(study, q, boosts)}, 1.5))

    return ranked


def name_boost(boost: float, then: Variant | None = None) -> Variant:
    """Capitalised words inside the question (names) weigh `boost` x in the BM25 query."""

    async def ranked(q: Question, study: Study) -> list[str]:
        names = {t for n in _NAME.findall(q.text) for t in query_terms(study, n)}
        boosts = {t: boost if t in names else 1.0 for t in query_terms(study, q.text)}
        lanes = {"vector": q.lanes["vector"], "lexical": bm25(study, q, boosts)}
        if then is None:
            return [i for i, _ in lanes["lexical"]]
        return await then(replace(q, deep=lanes, pool=POOL), study)

    return ranked


def stripped_vector_query(then: Variant | None = None) -> Variant:
    """The vector lane is asked with the question words removed from the query."""

    async def ranked(q: Question, study: Study) -> list[str]:
        if not hasattr(study, "stripped"):
            texts = [
                " ".join(w for w in re.findall(r"[\w']+", x.text) if w.lower() not in _STOP)
                for x in study.questions
            ]
            vectors = cached_vectors(study.embedder, texts).tolist()
            study.stripped = dict(zip([x.text for x in study.questions], vectors, strict=True))
        hits = pairs(await study.vector.search(study.stripped[q.text], q.scope, POOL))
        if then is None:
            return [i for i, _ in hits]
        lanes = {"vector": hits, "lexical": q.lanes["lexical"]}
        return await then(replace(q, deep=lanes, pool=POOL), study)

    return ranked


def with_analyzer(analyzer: str, then: Variant) -> Variant:
    """The lexical lane rebuilt with another tantivy analyzer (`lexical/analyzers.py`)."""

    async def ranked(q: Question, study: Study) -> list[str]:
        indexes = study.__dict__.setdefault("analyzers", {})
        if analyzer not in indexes:
            indexes[analyzer] = TantivyLexicalIndex(study.workdir / analyzer, analyzer=analyzer)
            await indexes[analyzer].upsert(list(study.memories.values()))
        hits = pairs(await indexes[analyzer].search(q.text, q.scope, POOL))
        lanes = {"vector": q.lanes["vector"], "lexical": hits}
        return await then(replace(q, deep=lanes, pool=POOL), study)

    return ranked


def _sum(values: list[float]) -> float:
    return sum(values)


VARIANTS: dict[str, Variant] = {
    "lexical lane alone": only("lexical"),
    "vector lane alone": only("vector"),
    "oracle: both lanes' candidates, gold first (ceiling)": oracle,
    "relative score, lexical x1.5 (the old default)": default(1.5, 0, 0),
    **{
        f"neighbour context {s} (max), lexical x1.5": smoothing(s)
        for s in (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
    },
    **{
        f"neighbour context {s} (sum), lexical x1.5": smoothing(s, combine=_sum) for s in (0.3, 0.5)
    },
    **{
        f"fetched neighbours of the top {k} at {s}": fetched_neighbours(k, s)
        for k in (1, 2)
        for s in (0.9, 0.7)
    },
    **{f"time boost {b}": time_boost(b) for b in (0.2, 0.5, 1.0)},
    "time boost 0.5 + a BM25 search inside the window": time_boost(0.5, window_search=True),
    "time boost 0.5 + window search, dates cut from the query": time_boost(0.5, True, True),
    "time boost 0.5, dates cut from the query": time_boost(0.5, strip=True),
    "time boost 1.0 + window search, dates cut": time_boost(1.0, True, True),
    **{
        f"PRF: {f} feedback hits, {t} terms at {w}": prf(f, t, w)
        for f in (3, 5)
        for t in (5, 10)
        for w in (0.2, 0.4)
    },
    **{f"z-score normalisation, lexical x{w}": zscore(w) for w in (1.0, 1.5, 2.0)},
    "'when' questions: lexical x3": when_weight(3.0),
    "questions with digits: lexical x3": digit_weight(3.0),
    "lane weights by score spread": spread_weights(),
    "lane weights by score spread, neighbours 0.5, time 2": spread_weights(0.5),
    "neighbours 0.5, time 1.0, lexical x1.5": smoothing(0.5, boost=1.0),
    "'when' lexical x3, neighbours 0.5": smoothing(0.5, when=3.0),
    "'when' lexical x5, neighbours 0.5": smoothing(0.5, when=5.0),
    **{
        f"lexical x{w}, neighbours {s} ({c.__name__.strip('_')}), time {b}": smoothing(s, w, b, c)
        for w, s, b, c in [
            *((w, s, 1.0, max) for w in (1.0, 2.0, 3.0, 4.0) for s in (0.5, 0.7)),
            *(
                (w, s, 2.0, c)
                for w in (2.0, 2.5, 3.0, 3.5, 4.0)
                for s in (0.4, 0.5, 0.6, 0.7)
                for c in (max, _sum)
            ),
        ]
    },
    "'when' lexical x5, lexical x3, neighbours 0.5, time 2": smoothing(0.5, 3.0, 2.0, when=5.0),
    **{
        f"{p} candidates per lane: lexical x{w}, neighbours {s}, time 2": deeper(
            p, smoothing(s, w, 2.0)
        )
        for p in (45, 60)
        for w in (2.0, 3.0)
        for s in (0.5, 0.7)
    },
    **{
        f"directional neighbours: after {a}, before {b}": directional(a, b)
        for a, b in ((0.7, 0.3), (0.5, 0.5), (0.3, 0.7), (0.7, 0.0), (0.0, 0.7))
    },
    **{
        f"neighbours inside each lane: lexical {a}, vector {b}, lexical x{w}": lane_smoothing(
            a, b, w
        )
        for a, b, w in (
            (0.5, 0.5, 3.0),
            (0.5, 0.0, 3.0),
            (0.0, 0.5, 3.0),
            (0.7, 0.3, 3.0),
            (0.3, 0.7, 3.0),
            (0.5, 0.5, 2.0),
            (0.7, 0.7, 2.0),
        )
    },
    "neighbours inside each lane, two turns away at half": lane_smoothing(0.5, 0.5, 3.0, reach=2),
    **{
        f"names x{b} in the BM25 query (lexical lane alone)": name_boost(b) for b in (1.5, 2.0, 3.0)
    },
    **{
        f"names x{b} in the BM25 query + the default": name_boost(b, default())
        for b in (1.5, 2.0, 3.0)
    },
    "vector query without question words (vector lane alone)": stripped_vector_query(),
    "vector query without question words + the default": stripped_vector_query(default()),
    **{
        f"neighbours up to {n} places, each further x{d}, share {s}": reaching(s, d, n)
        for n in (2, 3)
        for d in (0.5, 0.6, 0.7)
        for s in (0.4, 0.5, 0.6)
    },
    **{
        f"neighbours up to 2 places at x0.6, share 0.5, lexical x{w}": reaching(0.5, 0.6, lexical=w)
        for w in (2.0, 2.5, 3.5)
    },
    **{
        f"neighbours up to 2 places at x0.6, share 0.5, + thread's best x{t}": reaching(
            0.5, 0.6, thread=t
        )
        for t in (0.1, 0.2)
    },
    **{f"analyzer {a} (lexical lane alone)": with_analyzer(a, only("lexical")) for a in ANALYZERS},
    **{f"analyzer {a} + the default ranking": with_analyzer(a, default()) for a in ANALYZERS},
    "**the default: lexical x3, neighbours 0.5 (two places away at half), time boost 2**": (
        default()
    ),
}
