"""What the ranking steps added for issue 15 cost per recall, in process:

    python -m bench.ranking_cost

Reading the times a query names, neighbour context and time boosts over every candidate,
and a confidence for each returned result. None of them reads anything: their cost
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

from memhive_domain.confidence import QueryWords, confidence
from memhive_domain.fusion import FusedHit
from memhive_domain.neighbours import DEFAULT_NEIGHBOUR_SHARE
from memhive_domain.query_time import DEFAULT_TIME_BOOST, times_named
from memhive_domain.ranking import in_context

from bench.lane_quality import EPOCH, memory_of
from bench.quality_study import NOW

QUERIES = (
    "What did Maria donate to a homeless shelter in December 2023?",
    "When did Caroline go to the LGBTQ support group?",
)
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
    records = {m.id: m for m in memories}
    hits = [FusedHit(m, rng.random(), {}, {"vector": rng.random()}) for m in records]
    return sorted(hits, key=lambda h: -h.score), records


def added_steps(query: str, hits: list[FusedHit], records: dict, returned: int) -> None:
    named = [n.range for n in times_named(query, NOW)]
    ranked = in_context(
        hits,
        records,
        named_times=named,
        neighbour_share=DEFAULT_NEIGHBOUR_SHARE,
        time_boost=DEFAULT_TIME_BOOST,
    )
    words = QueryWords.of(query)
    for h in ranked[:returned]:
        confidence(h.lane_scores.get("vector", 0.0), words.coverage(records[h.memory_id].body))


def main() -> None:
    print("| max_results | candidates | body chars | added per recall, µs: best / median of 14 |")
    print("|---:|---:|---:|---:|")
    for limit in (6, 10, 20):
        for body in (SENTENCE[:120], SENTENCE * 27):
            hits, records = candidates(2 * 3 * limit, body)
            runs = [
                timeit.timeit(partial(added_steps, q, hits, records, limit), number=200) / 200
                for q in QUERIES
                for _ in range(7)
            ]
            best, median = min(runs), sorted(runs)[len(runs) // 2]
            print(
                f"| {limit} | {len(hits)} | {len(body)} | {best * 1e6:.0f} / {median * 1e6:.0f} |"
            )


if __name__ == "__main__":
    main()
