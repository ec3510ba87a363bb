"""The local MiniLM runtimes side by side on this machine: the NumPy pass, onnxruntime with
1 and 2 threads, onnxruntime on an int8 (dynamically quantised) copy of our graph run in
batches, and the int8 encoder (issue 25's default: that graph with its first block in fp32,
each text in a pass of its own).

Speed is measured in ONE process, the variants interleaved round by round (A B C D A B C D
...), so a busy machine slows them alike and the ratios hold; each figure is the median of
the rounds. Load time and RSS are measured each in a fresh process. Quality: the cosine of
each variant's vectors with the NumPy pass's on a few hundred varied sentences (LoCoMo turns
and questions when ../shared/bench/locomo is there, generated sentences otherwise).

Run: .venv/bin/python -m bench.embedder_speed [--rounds 7] [--profile]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from memhive_adapters.embedding.batch_plan import embed_in_batches
from memhive_adapters.embedding.minilm import MiniLmEmbedder, bundled_model_dir
from memhive_adapters.embedding.word_pieces import load_word_piece_tokenizer, pad, token_ids

# Memory-like sentences of varied length (~8-40 word pieces), generated, not from a dataset.
SUBJECTS = ["The deploy", "Alice's review", "The nightly backup", "Our NATS cluster", "The API"]
EVENTS = [
    "failed because the database migration timed out",
    "moved to Thursday after the incident review with the platform team",
    "needs uv rather than pip for every dependency change",
    "was rolled back",
    "depends on the staging credentials that rotate every ninety days, so check them first",
]
VARIANTS = (
    "numpy",
    "onnx",
    "onnx-2-threads",
    "onnx-int8",
    "onnx-int8-per-text-v1",
    "onnx-int8-per-text",
)
BATCH = 64


def sentences(count: int) -> list[str]:
    return [f"{SUBJECTS[i % 5]} {EVENTS[(i // 5) % 5]} (note {i})." for i in range(count)]


def quality_sample() -> list[str]:
    """~400 varied sentences: LoCoMo turns and questions if present (read, never copied)."""
    from bench.locomo import LOCOMO_DIR, _jsonl, conversations, turn_text

    if not LOCOMO_DIR.exists():
        return sentences(400)
    names = conversations()
    turns = [turn_text(t) for c in names for t in _jsonl(LOCOMO_DIR / f"{c}.memories.jsonl")]
    questions = [q["question"] for c in names for q in _jsonl(LOCOMO_DIR / f"{c}.queries.jsonl")]
    return turns[::5][:300] + questions[::4][:100] + ["ok", "", "word " * 300]


class SessionEmbedder:
    """embed_sync over any onnxruntime session of our graph (the int8 copy has no class)."""

    def __init__(self, session, model_dir: Path) -> None:
        self._session, self._tokenizer = session, load_word_piece_tokenizer(model_dir)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        return embed_in_batches(token_ids(self._tokenizer, texts), 384, self._run)

    def _run(self, sequences: list[Sequence[int]]) -> np.ndarray:
        ids, mask = pad(sequences)
        return self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def int8_graph(cache_dir: Path) -> Path:
    """Our fp32 graph (already in the cache), dynamically quantised (uint8 weights per
    channel: the most accurate of the settings tried), next to it in the cache."""
    from memhive_adapters.embedding.onnx_graph_cache import graph_cache_key, graph_cache_path
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = graph_cache_path(cache_dir, graph_cache_key(bundled_model_dir()))
    int8 = fp32.with_suffix(".int8.onnx")
    if not int8.exists():
        quantize_dynamic(fp32, int8, weight_type=QuantType.QUInt8, per_channel=True)
    return int8


def build(variant: str, cache_dir: Path):
    if variant == "numpy":
        return MiniLmEmbedder(threads=1)
    from memhive_adapters.embedding.onnx_minilm import (
        INT8,
        INT8_V1,
        OnnxMiniLmEmbedder,
        session_options,
    )

    if variant == "onnx-int8-per-text":  # the default: 7-bit signed weights
        return OnnxMiniLmEmbedder(cache_dir, variant=INT8)
    if variant == "onnx-int8-per-text-v1":  # the default before it: uint8 weights
        return OnnxMiniLmEmbedder(cache_dir, variant=INT8_V1)
    if variant == "onnx-int8":
        import onnxruntime as ort

        session = ort.InferenceSession(str(int8_graph(cache_dir)), session_options(1))
        return SessionEmbedder(session, bundled_model_dir())
    return OnnxMiniLmEmbedder(cache_dir, threads=2 if variant == "onnx-2-threads" else 1)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def load_in_fresh_process(variant: str, cache_dir: Path) -> dict[str, float]:
    """Import, load (the graph already cached) and RSS, in a process of its own."""
    command = [sys.executable, "-m", "bench.embedder_speed", "--child", variant, str(cache_dir)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


def child(variant: str, cache_dir: Path) -> None:
    base = rss_mb()
    started = time.perf_counter()
    if variant != "numpy":
        import onnxruntime  # noqa: F401  (its import is part of the cost of choosing it)
    imported = time.perf_counter()
    embedder = build(variant, cache_dir)
    loaded = time.perf_counter()
    after_load = rss_mb()
    embedder.embed_sync(sentences(BATCH))
    print(
        json.dumps(
            {
                "import_s": imported - started,
                "load_s": loaded - imported,
                "rss_load_mb": after_load - base,
                "rss_batch_mb": rss_mb() - base,
            }
        )
    )


def timed_round(embed: Callable[[Sequence[str]], np.ndarray], singles: list[str], batch: list[str]):
    wall, cpu = [], []
    for text in singles:
        began_wall, began_cpu = time.perf_counter(), time.process_time()
        embed([text])
        wall.append(time.perf_counter() - began_wall)
        cpu.append(time.process_time() - began_cpu)
    began, began_cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(batch), BATCH):
        embed(batch[start : start + BATCH])
    throughput = len(batch) / (time.perf_counter() - began)
    per_cpu_s = len(batch) / (time.process_time() - began_cpu)  # what a busy machine keeps
    return statistics.median(wall), statistics.mean(cpu), throughput, per_cpu_s


def speed(embedders: dict, rounds: int) -> dict[str, dict[str, float]]:
    texts = sentences(BATCH * 4 + 40 * rounds)
    for embedder in embedders.values():
        embedder.embed_sync(texts[:BATCH])  # warm-up
    figures: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    for round_ in range(rounds):
        singles = texts[BATCH * 4 + 40 * round_ : BATCH * 4 + 40 * (round_ + 1)]
        for name, embedder in embedders.items():
            figures[name].append(timed_round(embedder.embed_sync, singles, texts[: BATCH * 4]))
    return {name: _medians(rows) for name, rows in figures.items()}


def _medians(rows: list[tuple[float, float, float, float]]) -> dict[str, float]:
    wall, cpu, throughput, per_cpu_s = zip(*rows, strict=True)
    return {
        "single_ms": statistics.median(wall) * 1000,
        "single_cpu_ms": statistics.median(cpu) * 1000,
        "batch_per_s": statistics.median(throughput),
        "batch_per_cpu_s": statistics.median(per_cpu_s),
    }


def quality(embedders: dict) -> dict[str, dict[str, float]]:
    sample = quality_sample()
    reference = embedders["numpy"].embed_sync(sample)
    result = {}
    for name, embedder in embedders.items():
        batched = np.sum(embedder.embed_sync(sample) * reference, axis=1)
        singles = np.array(
            [embedder.embed_sync([text])[0] @ reference[i] for i, text in enumerate(sample)]
        )
        both = np.concatenate([batched, singles])
        result[name] = {"cos_min": float(both.min()), "cos_median": float(np.median(both))}
    return result | {"sample": len(sample)}


def profile_single(cache_dir: Path, count: int = 200) -> dict[str, float]:
    """Where one sentence's time goes under onnxruntime: tokenising, each operator type,
    and the rest (the session's own overhead, Python), in ms per sentence."""
    import onnxruntime as ort
    from memhive_adapters.embedding.onnx_graph_cache import graph_cache_key, graph_cache_path
    from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder, session_options

    OnnxMiniLmEmbedder(cache_dir)
    options = session_options(1)
    options.enable_profiling = True
    options.profile_file_prefix = str(cache_dir / "profile")
    path = graph_cache_path(cache_dir, graph_cache_key(bundled_model_dir()))
    embedder = SessionEmbedder(ort.InferenceSession(str(path), options), bundled_model_dir())
    texts = sentences(count)
    tokenizer = load_word_piece_tokenizer(bundled_model_dir())
    began = time.perf_counter()
    for text in texts:
        token_ids(tokenizer, [text])
    tokenise_ms = (time.perf_counter() - began) * 1000 / count
    began = time.perf_counter()
    for text in texts:
        embedder.embed_sync([text])
    total_ms = (time.perf_counter() - began) * 1000 / count
    by_op = _operator_times(Path(embedder._session.end_profiling()), count)
    rest = total_ms - tokenise_ms - sum(by_op.values())
    return {"total": total_ms, "tokenise": tokenise_ms, **by_op, "rest": rest}


def _operator_times(trace: Path, count: int) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for event in json.loads(trace.read_text()):
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            totals[event["args"]["op_name"]] += event["dur"] / 1000 / count
    return dict(sorted(totals.items(), key=lambda item: -item[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="also profile one onnx pass")
    parser.add_argument(
        "--child", nargs=2, metavar=("VARIANT", "CACHE_DIR"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        return child(args.child[0], Path(args.child[1]))
    with tempfile.TemporaryDirectory(prefix="memhive-embedder-speed-") as directory:
        report(Path(directory), args.rounds, args.profile)


def report(cache_dir: Path, rounds: int, profile: bool) -> None:
    began = time.perf_counter()
    build("onnx", cache_dir)
    built = time.perf_counter()
    int8_graph(cache_dir)
    print(
        json.dumps(
            {
                "graph_built_and_cached_s": round(built - began, 2),
                "int8_quantised_s": round(time.perf_counter() - built, 2),
            }
        )
    )
    loads = {variant: load_in_fresh_process(variant, cache_dir) for variant in VARIANTS}
    embedders = {variant: build(variant, cache_dir) for variant in VARIANTS}
    figures = speed(embedders, rounds)
    cosines = quality(embedders)
    print(f"quality sample: {cosines.pop('sample')} sentences; {rounds} interleaved rounds")
    for variant in VARIANTS:
        row = loads[variant] | figures[variant] | cosines[variant]
        print(json.dumps({"variant": variant} | {k: round(v, 4) for k, v in row.items()}))
    if profile:
        print(json.dumps({k: round(v, 3) for k, v in profile_single(cache_dir).items()}))


if __name__ == "__main__":
    main()
