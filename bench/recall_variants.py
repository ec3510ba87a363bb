"""Issue 27's ranking variants on LoCoMo, in process, each with its recall@5 per category
and per conversation (the spread says whether a gain carries over):

    python -m bench.recall_variants

The lanes' candidates come from `bench.study_lanes` (real tantivy, qdrant-edge, MiniLM);
each memory's mentions are read once, as a save stores them (`mentions.py`). Every
variant measured for issue 27 is here, kept or not; "the default" is the domain code
recall runs (`ranking.in_context`, then `following.py`); "the five steps" are the ranking
without following names.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from memhive_domain.answer_fit import asks_when
from memhive_domain.following import (
    DEFAULT_FOLLOW_TOP,
    FOLLOWED_SHARE,
    names_to_follow,
    with_followed,
)
from memhive_domain.fusion import FusedHit, fuse_relative_scores
from memhive_domain.mentions import mentions_of, names_in
from memhive_domain.neighbours import thread_position
from memhive_domain.query_time import times_named
from memhive_domain.ranking import AnswerFit, in_context

from bench.locomo import CATEGORIES, conversations
from bench.study_lanes import NOW, POOL, Question, Study, Variant, build, cached_vectors

Lanes = dict[str, list[tuple[str, float]]]
OFF = AnswerFit(reply_share=0.0, subject_boost=0.0, dated_boost=0.0, question_penalty=0.0)


def ranking(
    fit: AnswerFit = AnswerFit(),  # noqa: B008 (frozen)
    *,
    lexical: float = 3.0,
    share: float = 0.5,
    stated_times: bool = True,
    then: Callable[[list[FusedHit], Question, Study], list[FusedHit]] | None = None,
) -> Variant:
    """The default ranking with issue 27's weights set; `stated_times=False` boosts only
    memories that happened in a named range (issue 15), not those that state one."""

    async def ranked(q: Question, study: Study) -> list[str]:
        hits = ranked_hits(q, study, q.lanes, fit, lexical, share, stated_times)
        return [h.memory_id for h in (then(hits, q, study) if then else hits)]

    return ranked


def ranked_hits(
    q: Question,
    study: Study,
    lanes: Lanes,
    fit: AnswerFit,
    lexical: float = 3.0,
    share: float = 0.5,
    stated_times: bool = True,
) -> list[FusedHit]:
    hits = fuse_relative_scores(lanes, weights={"vector": 1.0, "lexical": lexical})
    records = study.memories
    if not stated_times:
        records = {i: replace(m, mentions=replace(m.names, times=())) for i, m in records.items()}
    return in_context(
        hits,
        records,
        named_times=[n.range for n in times_named(q.text, NOW)],
        neighbour_share=share,
        time_boost=2.0,
        names=names_in(q.text),
        wants_time=asks_when(q.text),
        fit=fit,
    )


def following(
    top: int = DEFAULT_FOLLOW_TOP,
    fit: AnswerFit = AnswerFit(),  # noqa: B008 (frozen)
    stated_times: bool = True,
    share: float | None = FOLLOWED_SHARE,
) -> Variant:
    """What recall does: the ranking, then one more BM25 search for the names the best
    `top` hits mention (`following.py`), its hits joining the lexical lane at most at
    `share` x its best score (None: with their own scores, unscaled)."""

    async def ranked(q: Question, study: Study) -> list[str]:
        first = ranked_hits(q, study, q.lanes, fit, stated_times=stated_times)
        said = {h.memory_id: study.memories[h.memory_id].names for h in first}
        names = names_to_follow([h.memory_id for h in first], said, names_in(q.text), top)
        if not names:
            return [h.memory_id for h in first]
        found = [
            (h.memory_id, h.score)
            for h in await study.lexical.search(" ".join(names), q.scope, POOL)
        ]
        lanes = dict(q.lanes)
        if share is None:
            have = {i for i, _ in lanes["lexical"]}
            added = [(i, s) for i, s in found if i not in have]
            lanes["lexical"] = sorted([*lanes["lexical"], *added], key=lambda x: -x[1])
        else:
            lanes["lexical"] = with_followed(lanes["lexical"], found, share)
        return [h.memory_id for h in ranked_hits(q, study, lanes, fit, stated_times=stated_times)]

    return ranked


def speaker_only(fit: AnswerFit) -> Variant:
    """The subject is the speaker alone, not the people a memory names."""

    async def ranked(q: Question, study: Study) -> list[str]:
        narrowed = replace(
            study,
            memories={
                i: replace(m, mentions=replace(m.names, people=m.names.people[:1]))
                if m.names.speaker
                else replace(m, mentions=replace(m.names, people=()))
                for i, m in study.memories.items()
            },
        )
        return [h.memory_id for h in ranked_hits(q, narrowed, q.lanes, fit)]

    return ranked


def session_diversity(cap: int, penalty: float) -> Callable:
    """Past `cap` hits of one thread, each further hit of it scores x penalty."""

    def diversified(hits: list[FusedHit], q: Question, study: Study) -> list[FusedHit]:
        seen: Counter[str] = Counter()
        out = []
        for h in hits:
            thread = thread_position(study.memories[h.memory_id].source_ref)[0]
            seen[thread] += 1
            out.append(replace(h, score=h.score * (penalty if seen[thread] > cap else 1.0)))
        return sorted(out, key=lambda h: -h.score)

    return diversified


def person_lane(mode: str, weight: float = 1.0) -> Variant:
    """A BM25 search among the memories about the people the question names (the filter
    pushed down, simulated by a deep search), the names cut from its query: `merge` adds
    its hits to the lexical lane, `third` fuses it as a lane of its own at `weight`."""

    async def ranked(q: Question, study: Study) -> list[str]:
        names = names_in(q.text)
        lanes = dict(q.lanes)
        if names:
            text = " ".join(w for w in q.text.split() if w.strip("?,.'s").lower() not in names)
            deep = await study.lexical.search(text, q.scope, 1000)
            own = [
                (h.memory_id, h.score)
                for h in deep
                if study.memories[h.memory_id].names.is_about(names)
            ][:POOL]
            if mode == "merge":
                merged = dict(lanes["lexical"]) | {
                    i: s for i, s in own if i not in dict(lanes["lexical"])
                }
                lanes["lexical"] = sorted(merged.items(), key=lambda x: -x[1])
            else:
                lanes["person"] = own
        hits = fuse_relative_scores(
            lanes, weights={"vector": 1.0, "lexical": 3.0, "person": weight}
        )
        return [h.memory_id for h in ranked_in_context(hits, q, study)]

    return ranked


def window_search(vector_too: bool = False) -> Variant:
    """For a question naming a time, one more BM25 search (and vector search) inside the
    first named range, its new hits added to the lane."""

    async def ranked(q: Question, study: Study) -> list[str]:
        named = times_named(q.text, NOW)
        lanes = {k: list(v) for k, v in q.lanes.items()}
        if named:
            window = replace(q.scope, occurred=named[0].range)
            extra = {"lexical": await study.lexical.search(q.text, window, POOL)}
            if vector_too:
                extra["vector"] = await study.vector.search(q.vector, window, POOL)
            for lane, hits in extra.items():
                have = {i for i, _ in lanes[lane]}
                added = [(h.memory_id, h.score) for h in hits if h.memory_id not in have]
                lanes[lane] = sorted(lanes[lane] + added, key=lambda x: -x[1])
        return [h.memory_id for h in ranked_hits(q, study, lanes, AnswerFit())]

    return ranked


def rocchio(alpha: float, top: int) -> Variant:
    """The vector lane asked again with the query vector moved towards the top hits'
    (alpha x their mean), its hits replacing the first search's."""

    async def ranked(q: Question, study: Study) -> list[str]:
        first = ranked_hits(q, study, q.lanes, AnswerFit())[:top]
        vectors = turn_vectors(study)
        moved = np.asarray(q.vector) + alpha * np.mean(
            [vectors[h.memory_id] for h in first], axis=0
        )
        again = await study.vector.search((moved / np.linalg.norm(moved)).tolist(), q.scope, POOL)
        lanes = {"vector": [(h.memory_id, h.score) for h in again], "lexical": q.lanes["lexical"]}
        return [h.memory_id for h in ranked_hits(q, study, lanes, AnswerFit())]

    return ranked


def turn_vectors(study: Study) -> dict[str, np.ndarray]:
    """Each memory's MiniLM vector, computed once per study."""
    held = study.__dict__.get("turn_vectors")
    if held is None:
        ids = list(study.memories)
        vectors = cached_vectors(study.embedder, [study.memories[i].body for i in ids])
        held = study.__dict__["turn_vectors"] = dict(zip(ids, vectors, strict=True))
    return held


def ranked_in_context(hits: list[FusedHit], q: Question, study: Study) -> list[FusedHit]:
    return in_context(
        hits,
        study.memories,
        named_times=[n.range for n in times_named(q.text, NOW)],
        neighbour_share=0.5,
        time_boost=2.0,
        names=names_in(q.text),
        wants_time=asks_when(q.text),
    )


VARIANTS: dict[str, Variant] = {
    "issue 15's default (lexical x3, neighbours 0.5 two places at half, named times x3)": ranking(
        OFF, stated_times=False
    ),
    "+ named times matched against stated times too": ranking(OFF),
    **{
        f"+ a memory that asks lends its reply {r}": ranking(replace(OFF, reply_share=r))
        for r in (0.6, 0.7, 0.8, 1.0)
    },
    **{
        f"+ about a person the question names x{1 + b:g}": ranking(replace(OFF, subject_boost=b))
        for b in (0.2, 0.3, 0.5, 0.8)
    },
    "+ said by a person the question names x1.5 (speaker only)": speaker_only(
        replace(OFF, subject_boost=0.5)
    ),
    **{
        f"+ when-questions: a memory stating a time x{1 + b:g}": ranking(
            replace(OFF, dated_boost=b)
        )
        for b in (0.2, 0.5, 1.0, 2.0)
    },
    **{
        f"+ a memory that asks a question x{1 - p:g}": ranking(replace(OFF, question_penalty=p))
        for p in (0.2, 0.3, 0.4)
    },
    "the four above: reply 0.7, person x1.5, time-stating x2": ranking(
        replace(AnswerFit(), question_penalty=0.0)
    ),
    **{
        f"the four + a memory that asks x{1 - p:g}": ranking(
            replace(AnswerFit(), question_penalty=p)
        )
        for p in (0.1, 0.2, 0.3, 0.4, 0.5)
    },
    **{
        f"the five + the names the top {t} hits mention searched once more, unscaled": following(
            t, share=None
        )
        for t in (1, 3, 5)
    },
    **{
        f"the five + the names the top 3 hits mention, joining at most at {s} x the best": (
            following(share=s)
        )
        for s in (0.5, 0.7, 0.8, 1.0)
    },
    "the default without stated times": following(stated_times=False),
    "the default without the reply share": following(fit=replace(AnswerFit(), reply_share=0.0)),
    "the default without the person boost": following(fit=replace(AnswerFit(), subject_boost=0)),
    "the default without the time-stating boost": following(
        fit=replace(AnswerFit(), dated_boost=0.0)
    ),
    "the default without the asking penalty": following(
        fit=replace(AnswerFit(), question_penalty=0.0)
    ),
    "the default without following names (the five steps alone)": ranking(),
    **{
        f"the five steps, lexical x{w}, neighbours {s}": ranking(lexical=w, share=s)
        for w in (2.0, 4.0)
        for s in (0.4, 0.6)
    },
    **{
        f"the five steps + session diversity: past {c} per thread x{p}": ranking(
            then=session_diversity(c, p)
        )
        for c, p in ((1, 0.8), (2, 0.8), (2, 0.6), (3, 0.8))
    },
    "the five steps + a lane of the named people's memories, merged into BM25": person_lane(
        "merge"
    ),
    **{
        f"the five steps + a lane of the named people's memories, fused x{w}": person_lane(
            "third", w
        )
        for w in (0.5, 1.0, 3.0)
    },
    "the five steps + a BM25 search inside the named time": window_search(),
    "the five steps + BM25 and vector searches inside the named time": window_search(True),
    **{
        f"the five steps + vector search again towards the top {t} (Rocchio {a})": rocchio(a, t)
        for a in (0.5, 1.0)
        for t in (3, 5)
    },
    "**the default (`ranking.in_context`, then `following.py`)**": following(),
}


async def score(study: Study, variant: Variant) -> dict[str, float]:
    rows: dict[str, list[float]] = defaultdict(list)
    for q in study.questions:
        ranked = await variant(q, study)
        r5 = len(q.gold & set(ranked[:5])) / len(q.gold)
        for key in ("overall", q.category, q.scope.product_id or ""):
            rows[key].append(r5)
    return {k: sum(v) / len(v) for k, v in rows.items()}


def header(convs: list[str]) -> str:
    cells = ["overall", *CATEGORIES, *convs]
    return "| variant | " + " | ".join(cells) + " |\n|---|" + "---:|" * len(cells)


def row(name: str, scores: dict[str, float], convs: list[str]) -> str:
    keys = ("overall", *CATEGORIES, *convs)
    return f"| {name} | " + " | ".join(f"{scores.get(k, 0.0):.3f}" for k in keys) + " |"


def with_mentions(study: Study) -> Study:
    """Each memory with its mentions read once, as a save stores them."""
    memories = {
        i: replace(m, mentions=mentions_of(m.body, m.occurred)) for i, m in study.memories.items()
    }
    return replace(study, memories=memories)


async def run(variants: dict[str, Variant]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        study = with_mentions(await build(Path(tmp)))
        convs = conversations()
        print(f"{len(study.questions)} questions, built in {time.monotonic() - started:.0f} s")
        print(header(convs))
        for name, variant in variants.items():
            print(row(name, await score(study, variant), convs), flush=True)
        await study.vector.close()
        await study.lexical.close()


if __name__ == "__main__":
    asyncio.run(run(VARIANTS))
