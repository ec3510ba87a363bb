"""Ranking variants on LoCoMo, scored in process: each question's lane candidates are
computed once with the real adapters (bench.study_lanes), and every variant of
bench.quality_variants re-ranks them (plus whatever extra lane searches the variant itself
needs).

    python -m bench.quality_study
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench.locomo import CATEGORIES
from bench.quality_variants import VARIANTS
from bench.study_lanes import Study, Variant, build


async def score(study: Study, variant: Variant) -> dict[str, dict[str, float]]:
    per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for q in study.questions:
        ranked = await variant(q, study)
        r5 = len(q.gold & set(ranked[:5])) / len(q.gold)
        r10 = len(q.gold & set(ranked[:10])) / len(q.gold)
        per[q.category].append((r5, r10))
    rows = {c: _mean(v) for c, v in per.items()}
    rows["overall"] = _mean([x for v in per.values() for x in v])
    return rows


def _mean(rows: list[tuple[float, float]]) -> dict[str, float]:
    return {"r5": sum(r for r, _ in rows) / len(rows), "r10": sum(r for _, r in rows) / len(rows)}


def render_row(name: str, rows: dict[str, dict[str, float]]) -> str:
    cells = [f"{rows[c]['r5']:.3f}" for c in ("overall", *CATEGORIES)]
    return f"| {name} | " + " | ".join(cells) + f" | {rows['overall']['r10']:.3f} |"


def header() -> str:
    return (
        "| variant | overall | "
        + " | ".join(CATEGORIES)
        + " | R@10 |\n|---|"
        + "---:|" * (len(CATEGORIES) + 2)
    )


async def run(variants: dict[str, Variant]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        study = await build(Path(tmp))
        print(
            f"{len(study.questions)} questions, lanes built in {time.monotonic() - started:.0f} s"
        )
        print(header())
        for name, variant in variants.items():
            print(render_row(name, await score(study, variant)), flush=True)
        await study.vector.close()
        await study.lexical.close()
        for index in study.__dict__.get("analyzers", {}).values():
            await index.close()


def main() -> None:
    asyncio.run(run(VARIANTS))


if __name__ == "__main__":
    main()
