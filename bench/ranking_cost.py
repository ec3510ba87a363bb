"""What the ranking steps added for issues 15 and 27 cost per recall, in process:

    python -m bench.ranking_cost

Reading the times a query names, neighbour context and time boosts over every candidate,
and a confidence for each returned result (issue 15); the people and the when a query
asks for, replies to questions, stated times and the answer fit (issue 27, over mentions
stored with each record, as a save keeps them). None of them reads anything: their cost
depends on the number of candidates (3 x max_results per lane), not on the store's size,
so the figure holds at 10k memories and at 100k. Bodies are LoCoMo-length sentences
(~120 characters) and, separately, 2,000-character ones.
"""

from __future__ import annotations

import random
import timeit
from dataclasses import replace
from datetime import timedelta
from functools import partial

from memhive.v1 import memory_pb2 as pb
from memhive_contracts.mapping import memory_from_pb, memory_to_pb
from memhive_domain.answer_fit import asks_when
from memhive_domain.confidence import FP32, QueryWords
from memhive_domain.fusion import FusedHit
from memhive_domain.mentions import mentions_of, names_in
from memhive_domain.neighbours import DEFAULT_NEIGHBOUR_SHARE
from memhive_domain.query_time import DEFAULT_TIME_BOOST, times_named
from memhive_domain.ranking import AnswerFit, in_context

from bench.lane_quality import EPOCH, memory_of
from bench.study_lanes import NOW

QUERIES = (
    "What did Maria donate to a homeless shelter in December 2023?",
    "When did Caroline go to the LGBTQ support group?",
)
ISSUE_15 = AnswerFit(reply_share=0.0, subject_boost=0.0, dated_boost=0.0, question_penalty=0.0)
SENTENCE = "Caroline: I went to a LGBTQ support group yesterday and it was so powerful. "


def candidates(count: int, body: str) -> tuple[list[FusedHit], dict]:
    rng = random.Random(count)
    memories = [
        replace(
            memory_of(
                {
                    "id": f"conv:D{rng.randint(1, 5)}:{i}",
                    "conversation": "conv",
                    "speaker": "A",
                    "text": body,
                }
            ),
            occurred_at=EPOCH + timedelta(days=rng.randint(0, 700)),
        )
        for i in range(count)
    ]
    memories = [replace(m, mentions=mentions_of(m.body, m.occurred)) for m in memories]
    records = {m.id: m for m in memories}
    hits = [FusedHit(m, rng.random(), {}, {"vector": rng.random()}) for m in records]
    return sorted(hits, key=lambda h: -h.score), records


def added_steps(
    query: str, hits: list[FusedHit], records: dict, returned: int, fit: AnswerFit | None
) -> None:
    """`fit` None: issue 15's steps alone (no people, no when, issue 27's weights off)."""
    named = [n.range for n in times_named(query, NOW)]
    ranked = in_context(
        hits,
        records,
        named_times=named,
        neighbour_share=DEFAULT_NEIGHBOUR_SHARE,
        time_boost=DEFAULT_TIME_BOOST,
        names=names_in(query) if fit else frozenset(),
        wants_time=asks_when(query) if fit else False,
        fit=fit or ISSUE_15,
    )
    words = QueryWords.of(query)
    for h in ranked[:returned]:
        FP32.confidence(h.lane_scores.get("vector", 0.0), words.coverage(records[h.memory_id].body))


def main() -> None:
    print(
        "| max_results | candidates | body chars | issue 15's steps, µs: best / median of 14 "
        "| with issue 27's: best / median | median ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for limit in (6, 10, 20):
        for body in (SENTENCE[:120], SENTENCE * 27):
            hits, records = candidates(2 * 3 * limit, body)
            runs: dict[bool, list[float]] = {False: [], True: []}
            for q in QUERIES:
                for _ in range(7):  # alternating A/B, so a busy machine weighs on both alike
                    for with_27 in (False, True):
                        step = partial(
                            added_steps, q, hits, records, limit, AnswerFit() if with_27 else None
                        )
                        runs[with_27].append(timeit.timeit(step, number=200) / 200)
            (b15, m15), (b27, m27) = (_best_median(runs[k]) for k in (False, True))
            print(
                f"| {limit} | {len(hits)} | {len(body)} | {b15 * 1e6:.0f} / {m15 * 1e6:.0f} "
                f"| {b27 * 1e6:.0f} / {m27 * 1e6:.0f} | {m27 / m15:.2f} |"
            )


def record_costs() -> None:
    """What keeping mentions adds to reading a record (a recall decodes one per candidate),
    and what reading them from the body costs for a record kept before they were."""
    body = SENTENCE[:120]
    plain = memory_of({"id": "conv:D1:1", "conversation": "conv", "speaker": "A", "text": body})
    kept = replace(plain, mentions=mentions_of(plain.body, plain.occurred))
    print("| per record, µs: best / median of 15 | without mentions | with mentions |")
    print("|---|---:|---:|")
    wires = {
        "plain": memory_to_pb(plain).SerializeToString(),
        "kept": memory_to_pb(kept).SerializeToString(),
    }
    cells = {
        k: _best_median(_timed(lambda w=w: memory_from_pb(pb.Memory.FromString(w))))
        for k, w in wires.items()
    }
    print(
        "| decode the record | "
        + " | ".join(f"{b * 1e6:.1f} / {m * 1e6:.1f}" for b, m in cells.values())
        + " |"
    )
    b, m = _best_median(_timed(lambda: mentions_of(plain.body, plain.occurred)))
    print(
        f"| read the mentions from the body (a record kept before) | {b * 1e6:.1f} / {m * 1e6:.1f} | 0 |"
    )


def _timed(step, runs: int = 15, number: int = 2000) -> list[float]:
    return [timeit.timeit(step, number=number) / number for _ in range(runs)]


def _best_median(runs: list[float]) -> tuple[float, float]:
    return min(runs), sorted(runs)[len(runs) // 2]


if __name__ == "__main__":
    main()
    record_costs()
