"""Trust in recall: do flagged memories fall below equally relevant trusted ones?

Our own fixture (the supersession pairs, saved side by side with no edges), each pair asked
two ways: a neutral question ("What does the iOS app use?", both facts about equally
relevant) and, the hardest case, the stale fact's own words (it is the best lexical and
semantic match). Measured before and after flagging every stale fact (wrong, outdated and
unverified in turn): how often the stale fact still ranks above its replacement.
Staleness by age cannot be made through the API (memories are saved now); its ranking is
covered by tests/unit/domain/test_trust.py with the same weights.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from memhive_client import AsyncMemhiveClient

from bench.running_stack import RunningStack, running_stack
from bench.supersession import PAIRS, new_body, old_body, save

SCOPE = "trust-fixture"
FLAGS = ("wrong", "outdated", "unverified")


QUESTIONS = {
    "neutral question": lambda subject, old: f"What does {subject.lower()} use?",
    "the stale fact's own words": old_body,
}


async def load(client: AsyncMemhiveClient) -> list[tuple[str, str, str, str]]:
    """(subject, old value, stale id, new id) per pair."""
    rows = []
    for subject, old, new in PAIRS:
        stale = await save(client, old_body(subject, old), SCOPE, force=True)
        fresh = await save(client, new_body(subject, new), SCOPE, force=True)
        rows.append((subject, old, stale, fresh))
    return rows


async def stale_first(client: AsyncMemhiveClient, rows, ask) -> tuple[int, Counter]:
    """How many questions rank the stale fact above its replacement (or it alone)."""
    above, by_flag = 0, Counter()
    for n, (subject, old, stale, fresh) in enumerate(rows):
        hits = await client.recall(ask(subject, old), product_id=SCOPE, max_results=5)
        ids = [hit.id for hit in hits]
        first = stale in ids and (fresh not in ids or ids.index(stale) < ids.index(fresh))
        above += first
        by_flag[FLAGS[n % len(FLAGS)]] += first
    return above, by_flag


async def flag_all(client: AsyncMemhiveClient, rows) -> None:
    for n, (_, _, stale, _) in enumerate(rows):
        await client.flag(stale, FLAGS[n % len(FLAGS)], "replaced (trust fixture)", wait="indexed")


async def run(stack: RunningStack) -> str:
    async with stack.client() as client:
        rows = await load(client)
        before = {label: await stale_first(client, rows, ask) for label, ask in QUESTIONS.items()}
        await flag_all(client, rows)
        after = {label: await stale_first(client, rows, ask) for label, ask in QUESTIONS.items()}
    per_kind = Counter(FLAGS[n % len(FLAGS)] for n in range(len(rows)))
    lines = [
        f"{len(rows)} pairs (max_results 5); stale fact ranked above its replacement:",
        "",
        "| question | flagged | all | wrong | outdated | unverified |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for label in QUESTIONS:
        for when, (count, by_flag) in (("before", before[label]), ("after", after[label])):
            cells = " | ".join(f"{by_flag[k]}/{per_kind[k]}" for k in FLAGS)
            lines.append(f"| {label} | {when} | {count}/{len(rows)} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    with running_stack() as stack:
        print(asyncio.run(run(stack)))


if __name__ == "__main__":
    main()
