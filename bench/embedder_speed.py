"""MiniLmEmbedder speed on this machine: load time, RSS after load, sentences/s in batches of
64, and the median latency of one sentence. Run: .venv/bin/python -m bench.embedder_speed
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time

from memhive_adapters.embedding.minilm import MiniLmEmbedder

# Memory-like sentences of varied length (~8-40 word pieces), generated, not from a dataset.
SUBJECTS = ["The deploy", "Alice's review", "The nightly backup", "Our NATS cluster", "The API"]
EVENTS = [
    "failed because the database migration timed out",
    "moved to Thursday after the incident review with the platform team",
    "needs uv rather than pip for every dependency change",
    "was rolled back",
    "depends on the staging credentials that rotate every ninety days, so check them first",
]


def sentences(count: int) -> list[str]:
    return [f"{SUBJECTS[i % 5]} {EVENTS[(i // 5) % 5]} (note {i})." for i in range(count)]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(threads: int, batches: int, singles: int) -> dict[str, float]:
    started = time.perf_counter()
    embedder = MiniLmEmbedder(threads=threads)
    loaded = time.perf_counter() - started
    rss = rss_mb()
    texts = sentences(64 * batches)
    await embedder.embed(texts[:64])  # warm-up
    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        await embedder.embed(texts[start : start + 64])
    throughput = len(texts) / (time.perf_counter() - started)
    latencies = []
    for text in texts[:singles]:
        started = time.perf_counter()
        await embedder.embed([text])
        latencies.append(time.perf_counter() - started)
    return {
        "threads": threads,
        "load_s": round(loaded, 3),
        "rss_after_load_mb": round(rss, 1),
        "sentences_per_s_batch64": round(throughput, 1),
        "single_p50_ms": round(statistics.median(latencies) * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--batches", type=int, default=16)
    parser.add_argument("--singles", type=int, default=100)
    args = parser.parse_args()
    for threads in args.threads:
        print(asyncio.run(measure(threads, args.batches, args.singles)))


if __name__ == "__main__":
    main()
