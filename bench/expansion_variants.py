"""Issue 27, round 2: expansions for multi-hop and open-domain questions, in process on
the lanes' real candidates (as `bench.recall_variants`), each with its recall@5 per
category and per conversation:

    python -m bench.expansion_variants

Every variant starts from the default recall (`recall_variants.following()`: the ranking,
then following names) and changes what the lanes hand it:
- **RM3** (pseudo-relevance feedback on the BM25 lane): the terms of the top `k` hits,
  each weighted by its share of a hit's length x the hit's score, the best `n` (less the
  query's own terms, speakers and terms in more than a tenth of the store), searched in
  BM25 as a weighted query; the lane's scores then interpolated, `keep` x the first
  query's + (1 - keep) x the expansion's, each scaled to its best.
- **instances of a category** ("instruments" -> "clarinet", "violin"): the question's
  content words matched by MiniLM similarity against the store's vocabulary (every word
  embedded once, cached), the close ones searched in BM25 and joining the lane as
  following does (at most `FOLLOWED_SHARE` x its best).
- **more vector candidates**: the vector lane asked for 45 or 60 instead of 30, the fused
  list cut back to the candidates a recall reads today (a bounded read), or not.
- **neighbours at a second hop**: the memories next to the best hits in their thread
  (one or two places), added as candidates that score only the context they get.
- **diversity** (`python -m bench.expansion_variants diversity`): maximal marginal relevance
  over the default's best `depth`: each next hit the one with the most score (scaled to the
  best) less `weight` x its MiniLM cosine with the closest hit already taken.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np
from memhive_domain.following import FOLLOWED_SHARE, names_to_follow, with_followed
from memhive_domain.fusion import FusedHit, fuse_relative_scores
from memhive_domain.mentions import names_in
from memhive_domain.neighbours import thread_position
from memhive_domain.question_words import QUESTION_STOPWORDS
from memhive_domain.ranking import AnswerFit

from bench.recall_variants import Lanes, ranked_hits, ranked_in_context, turn_vectors
from bench.recall_variants import run as run_variants
from bench.study_lanes import POOL, Question, Study, Variant

MAX_DF_SHARE = 0.1  # an expansion term in more than this share of the store tells nothing


async def default_hits(
    q: Question, study: Study, lanes: Lanes, extra: tuple[str, ...] = ()
) -> list[FusedHit]:
    """What recall does with these lanes: the ranking, then following names; `extra`
    candidates join with no lane score (they score only the context they get)."""
    first = _ranked(q, study, lanes, extra)
    said = {h.memory_id: study.memories[h.memory_id].names for h in first}
    names = names_to_follow([h.memory_id for h in first], said, names_in(q.text))
    if not names or not lanes["lexical"]:
        return first
    found = await study.lexical.search(" ".join(names), q.scope, POOL)
    lanes = dict(lanes)
    lanes["lexical"] = with_followed(lanes["lexical"], [(h.memory_id, h.score) for h in found])
    return _ranked(q, study, lanes, extra)


def _ranked(q: Question, study: Study, lanes: Lanes, extra: tuple[str, ...]) -> list[FusedHit]:
    if not extra:
        return ranked_hits(q, study, lanes, AnswerFit())
    hits = fuse_relative_scores(lanes, weights={"vector": 1.0, "lexical": 3.0})
    have = {h.memory_id for h in hits}
    hits += [FusedHit(i, 0.0) for i in extra if i not in have]
    return ranked_in_context(hits, q, study)


Expansion = Callable[[Question, Study, list[FusedHit]], Awaitable[Lanes]]


def expanded(expand: Expansion) -> Variant:
    """The default recall, its lanes expanded from its first answer, then ranked again."""

    async def ranked(q: Question, study: Study) -> list[str]:
        first = await default_hits(q, study, q.lanes)
        lanes = await expand(q, study, first)
        return [h.memory_id for h in await default_hits(q, study, lanes)]

    return ranked


# --- RM3 ------------------------------------------------------------------------------


def _terms(study: Study) -> dict[str, Counter[str]]:
    """Each memory's analysed terms (question stop words left out), read once."""
    cached = study.__dict__.get("terms")
    if cached is None:
        analyzer = study.lexical._query_analyzer
        cached = {i: Counter(analyzer.analyze(m.body)) for i, m in study.memories.items()}
        study.__dict__["terms"] = cached
    return cached


def _document_frequency(study: Study) -> Counter[str]:
    cached = study.__dict__.get("df")
    if cached is None:
        cached = Counter(t for terms in _terms(study).values() for t in terms)
        study.__dict__["df"] = cached
    return cached


def feedback_terms(q: Question, study: Study, first: list[FusedHit], k: int, n: int):
    """RM3's expansion terms: sum over the top k of score x tf / length, the best n."""
    terms, df = _terms(study), _document_frequency(study)
    asked = set(study.lexical._query_analyzer.analyze(q.text))
    speakers = {
        s.lower() for h in first if (s := study.memories[h.memory_id].names.speaker) is not None
    }
    limit = MAX_DF_SHARE * len(study.memories)
    top = first[:k]
    total = sum(h.score for h in top) or 1.0
    weights: Counter[str] = Counter()
    for h in top:
        counts = terms[h.memory_id]
        length = sum(counts.values()) or 1
        for t, tf in counts.items():
            if t not in asked and t not in speakers and df[t] <= limit and len(t) > 2:
                weights[t] += (h.score / total) * tf / length
    return weights.most_common(n)


async def weighted_search(
    study: Study, q: Question, weighted: list[tuple[str, float]]
) -> list[tuple[str, float]]:
    """BM25 of a weighted OR of terms: a Should query scores the sum of its terms'
    BM25, so one search per term, summed with the weights."""
    scores: Counter[str] = Counter()
    for term, weight in weighted:
        for h in await study.lexical.search(term, q.scope, POOL):
            scores[h.memory_id] += weight * h.score
    return scores.most_common(POOL)


async def terms_search(
    study: Study, q: Question, terms: list[tuple[str, float]], weighted: bool
) -> list[tuple[str, float]]:
    """The terms searched in BM25: weighted (`weighted_search`) or as one plain query."""
    if weighted:
        return await weighted_search(study, q, terms)
    hits = await study.lexical.search(" ".join(t for t, _ in terms), q.scope, POOL)
    return [(h.memory_id, h.score) for h in hits]


def interpolated(
    first: list[tuple[str, float]],
    second: list[tuple[str, float]],
    keep: float,
    cut: bool = False,
) -> list[tuple[str, float]]:
    if not first:
        return []
    top1 = max(s for _, s in first) or 1.0
    top2 = max((s for _, s in second), default=0.0) or 1.0
    scores: Counter[str] = Counter()
    for i, s in first:
        scores[i] += keep * s / top1
    for i, s in second:
        scores[i] += (1 - keep) * s / top2
    return scores.most_common(len(first) if cut else len(first) + len(second))


def rm3(k: int, n: int, keep: float, weighted: bool = True, cut: bool = False) -> Variant:
    async def expand(q: Question, study: Study, first: list[FusedHit]) -> Lanes:
        terms = feedback_terms(q, study, first, k, n)
        if not terms:
            return q.lanes
        found = await terms_search(study, q, terms, weighted)
        return {**q.lanes, "lexical": interpolated(q.lanes["lexical"], found, keep, cut)}

    return expanded(expand)


# --- instances of a category ----------------------------------------------------------

_WORD = re.compile(r"[a-z]{3,}")
_STOP = frozenset(QUESTION_STOPWORDS)


def _vocabulary(study: Study) -> tuple[list[str], np.ndarray]:
    """The store's distinct words and their MiniLM vectors (embedded once, cached)."""
    cached = study.__dict__.get("vocabulary")
    if cached is None:
        words = sorted(
            {w for m in study.memories.values() for w in _WORD.findall(m.body.lower())} - _STOP
        )
        cached = (words, _cached_vectors(study, words))
        study.__dict__["vocabulary"] = cached
    return cached


def _cached_vectors(study: Study, texts: list[str]) -> np.ndarray:
    key = hashlib.sha256("\n".join(["words", *texts]).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"memhive-quality-{key}.npy"
    if path.exists():
        return np.load(path)
    vectors = np.asarray(study.embedder.embed_sync(texts), dtype=np.float32)
    np.save(path, vectors)
    return vectors


def instances(
    q: Question, study: Study, floor: float, per_word: int, plural_only: bool = False
) -> list[tuple[str, float]]:
    """Store words whose vector is within `floor` cosine of a question content word's
    (not the word itself nor a form of it), the closest `per_word` each."""
    words, vectors = _vocabulary(study)
    analyze = study.lexical._query_analyzer.analyze
    asked = [
        w
        for w in _WORD.findall(q.text.lower())
        if w not in _STOP
        and w not in names_in(q.text)
        and analyze(w)
        and (not plural_only or (w.endswith("s") and analyze(w)[0] != w))
    ]
    if not asked:
        return []
    index = {w: i for i, w in enumerate(words)}
    found: dict[str, float] = {}
    for w in asked:
        v = vectors[index[w]] if w in index else np.asarray(study.embedder.embed_sync([w])[0])
        sims = vectors @ v
        stem = analyze(w)
        for j in np.argsort(-sims)[: per_word + 5]:
            if sims[j] < floor or len(found) >= 3 * per_word * len(asked):
                break
            if analyze(words[j]) != stem:
                found[words[j]] = max(found.get(words[j], 0.0), float(sims[j]))
    return sorted(found.items(), key=lambda x: -x[1])[: per_word * len(asked)]


def category_instances(
    floor: float,
    per_word: int,
    weighted: bool = False,
    *,
    plural_only: bool = False,
    share: float = FOLLOWED_SHARE,
) -> Variant:
    async def expand(q: Question, study: Study, first: list[FusedHit]) -> Lanes:
        close = instances(q, study, floor, per_word, plural_only)
        if not close or not q.lanes["lexical"]:
            return q.lanes
        found = await terms_search(study, q, close, weighted)
        return {**q.lanes, "lexical": with_followed(q.lanes["lexical"], found, share)}

    return expanded(expand)


# --- more vector candidates -----------------------------------------------------------


def deeper_vector(pool: int, read: int | None = None) -> Variant:
    """The vector lane asked for `pool`; with `read`, only the best `read` fused candidates
    go on (the records a recall would read)."""

    async def ranked(q: Question, study: Study) -> list[str]:
        lanes = {"vector": q.deep["vector"][:pool], "lexical": q.lanes["lexical"]}
        if read is not None:
            lanes = _cut(lanes, read)
        return [h.memory_id for h in await default_hits(q, study, lanes)]

    return ranked


def _cut(lanes: Lanes, read: int) -> Lanes:
    fused = fuse_relative_scores(lanes, weights={"vector": 1.0, "lexical": 3.0})
    kept = {h.memory_id for h in fused[:read]}
    return {lane: [(i, s) for i, s in hits if i in kept] for lane, hits in lanes.items()}


# --- neighbours at a second hop -------------------------------------------------------


def _threads(study: Study) -> dict[tuple[str, int], str]:
    cached = study.__dict__.get("threads")
    if cached is None:
        cached = {
            pos: i
            for i, m in study.memories.items()
            if (pos := thread_position(m.source_ref)) is not None
        }
        study.__dict__["threads"] = cached
    return cached


def second_hop(top: int, reach: int, replies_only: bool = False) -> Variant:
    """The memories up to `reach` places from the best `top` hits join the candidates
    with no lane score: they score only what their neighbours lend them."""

    async def ranked(q: Question, study: Study) -> list[str]:
        first = await default_hits(q, study, q.lanes)
        threads = _threads(study)
        have = {h.memory_id for h in first}
        added: dict[str, None] = {}
        for h in first[:top]:
            pos = thread_position(study.memories[h.memory_id].source_ref)
            if replies_only and not study.memories[h.memory_id].names.asks:
                continue
            steps = (1,) if replies_only else (d for r in range(1, reach + 1) for d in (-r, r))
            for step in steps:
                near = threads.get((pos[0], pos[1] + step)) if pos else None
                if near and near not in have:
                    added.setdefault(near)
        return [h.memory_id for h in await default_hits(q, study, q.lanes, tuple(added))]

    return ranked


ROUND = {
    **{
        f"+ RM3, the lane cut to 30: top {k}, 10 terms, keep {keep}": rm3(k, 10, keep, cut=True)
        for k in (3, 5)
        for keep in (0.7, 0.9)
    },
    **{
        f"+ instances of a plural noun: cosine >= {f}, 3 per word, joining at {sh}": category_instances(
            f, 3, plural_only=True, share=sh
        )
        for f in (0.6, 0.7)
        for sh in (0.5, 0.8)
    },
    **{
        f"+ category instances: cosine >= 0.7, 3 per word, joining at {sh}": category_instances(
            0.7, 3, share=sh
        )
        for sh in (0.5, 0.65)
    },
    **{f"+ the reply to each of the top {t} that asks": second_hop(t, 1, True) for t in (3, 5, 10)},
}

VARIANTS: dict[str, Variant] = {
    "the default (round 1)": expanded(lambda q, study, first: _same(q)),
    **{
        f"+ RM3: top {k}, {n} terms, keep {keep}": rm3(k, n, keep)
        for k in (3, 5, 10)
        for n in (5, 10)
        for keep in (0.5, 0.7, 0.9)
    },
    **{
        f"+ RM3 unweighted: top {k}, {n} terms, keep 0.7": rm3(k, n, 0.7, False)
        for k, n in ((5, 10), (10, 10))
    },
    **{
        f"+ category instances: cosine >= {f}, {p} per word": category_instances(f, p)
        for f in (0.5, 0.6, 0.7)
        for p in (3, 5)
    },
    "+ category instances: cosine >= 0.6, 5 per word, weighted": category_instances(0.6, 5, True),
    **{f"vector lane {p} candidates": deeper_vector(p) for p in (45, 60)},
    **{
        f"vector lane {p} candidates, the best {r} fused read": deeper_vector(p, r)
        for p in (45, 60)
        for r in (45, 60)
    },
    **{
        f"+ neighbours of the top {t} within {r} places": second_hop(t, r)
        for t in (3, 5, 10)
        for r in (1, 2)
    },
}


async def _same(q: Question) -> Lanes:
    return q.lanes


def combined(
    pool: int = POOL, close: tuple[float, int, float] | None = None, replies: int = 0
) -> Variant:
    """More vector candidates, instances of the question's words, replies at a second hop."""

    async def ranked(q: Question, study: Study) -> list[str]:
        lanes = {"vector": q.deep["vector"][:pool], "lexical": q.lanes["lexical"]}
        if close is not None and lanes["lexical"]:
            found_words = instances(q, study, close[0], close[1])
            if found_words:
                hits = await study.lexical.search(
                    " ".join(w for w, _ in found_words), q.scope, POOL
                )
                lanes["lexical"] = with_followed(
                    lanes["lexical"], [(h.memory_id, h.score) for h in hits], close[2]
                )
        first = await default_hits(q, study, lanes)
        if not replies:
            return [h.memory_id for h in first]
        threads, have = _threads(study), {h.memory_id for h in first}
        added = []
        for h in first[:replies]:
            m = study.memories[h.memory_id]
            pos = thread_position(m.source_ref)
            if (
                m.names.asks
                and pos
                and (nxt := threads.get((pos[0], pos[1] + 1)))
                and nxt not in have
            ):
                added.append(nxt)
        return [h.memory_id for h in await default_hits(q, study, lanes, tuple(added))]

    return ranked


def diversified(weight: float, depth: int) -> Variant:
    """The default recall, its best `depth` reordered by maximal marginal relevance."""

    async def ranked(q: Question, study: Study) -> list[str]:
        hits = await default_hits(q, study, q.lanes)
        vectors = turn_vectors(study)
        head, left = [], hits[:depth]
        best = max((h.score for h in left), default=0.0) or 1.0
        while left:

            def marginal(h: FusedHit) -> float:
                closest = max(
                    (float(np.dot(vectors[h.memory_id], vectors[t.memory_id])) for t in head),
                    default=0.0,
                )
                return h.score / best - weight * closest

            head.append(max(left, key=marginal))
            left.remove(head[-1])
        return [h.memory_id for h in head + hits[depth:]]

    return ranked


DIVERSITY = {
    "the default (round 1)": expanded(lambda q, study, first: _same(q)),
    **{
        f"+ diversity (MMR) over the best {d}, weight {w}": diversified(w, d)
        for d in (10, 20)
        for w in (0.05, 0.1, 0.2, 0.3, 0.5)
    },
}

COMBINED = {
    "vector 60 + replies of the top 5": combined(60, replies=5),
    "instances 0.7/3 at 0.65 + replies of the top 5": combined(close=(0.7, 3, 0.65), replies=5),
    "vector 60 + instances 0.7/3 at 0.65": combined(60, close=(0.7, 3, 0.65)),
    "vector 60 + instances 0.7/3 at 0.65 + replies of the top 5": combined(
        60, close=(0.7, 3, 0.65), replies=5
    ),
    "instances 0.7/3 at 0.8 + replies of the top 5": combined(close=(0.7, 3, 0.8), replies=5),
}


if __name__ == "__main__":
    import sys

    chosen = {"combined": COMBINED, "round": ROUND, "diversity": DIVERSITY}
    asyncio.run(run_variants(next((chosen[a] for a in sys.argv[1:] if a in chosen), VARIANTS)))
