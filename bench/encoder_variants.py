"""The int8 variants of MiniLM tried for issue 25, measured against our fp32 graph.

    .venv/bin/python -m bench.encoder_variants [--only NAME ...]

Each variant is onnxruntime's quantiser over our fp32 graph, weight matmuls only:
- static: activation scales calibrated once, offline, on CALIBRATION (sentences generated
  here from templates, never LoCoMo), per tensor or per channel, MinMax or percentile,
  some matmuls kept in fp32;
- dynamic: scales taken per pass, run on a whole batch or on each text alone, with one
  encoder block or one kind of matmul kept in fp32.
Figures: cosine with fp32 over generated sentences (min / median), whether a text's vector
changes with its batch (min cosine between alone and batched), and CPU per sentence.
docs/benchmarks.md ("Encoder (issue 25)") has the table this printed.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
from memhive_adapters.embedding.minilm import bundled_model_dir
from memhive_adapters.embedding.onnx_graph_cache import graph_cache_key, graph_cache_path
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder, session_options
from memhive_adapters.embedding.word_pieces import load_word_piece_tokenizer, pad, token_ids

from bench.embedder_speed import SessionEmbedder, sentences

NAMES = ["Alice", "Bob", "Priya", "Chen", "Maria", "Tom", "Yusuf", "Lena", "Kofi", "Sara"]
PLACES = ["Lisbon", "the office", "Berlin", "the lake house", "Osaka", "the gym", "a cafe"]
THINGS = [
    "the database migration",
    "a pottery class",
    "the quarterly report",
    "her new puppy",
    "the marathon",
    "a camping trip",
    "the billing service",
    "his guitar lessons",
    "the kitchen renovation",
    "a job interview",
    "the Kubernetes cluster",
    "the release branch",
]
FEELINGS = ["excited", "nervous", "proud", "tired", "relieved", "frustrated", "happy"]
WHEN = ["yesterday", "last Tuesday", "on 3 May 2023", "next week", "two years ago", "at 9:30 pm"]
TEMPLATES = [
    "{n} went to {p} {w} to sort out {t}.",
    "I'm so {f} about {t}, {n} said it would be done {w}.",
    "Hey {n}! How did {t} go? I heard you were in {p} {w}.",
    "Decision: {t} moves to {p}; {n} owns it from {w} on.",
    "{n} told me {w} that {t} failed twice because the config in {p} was stale.",
    "We picked {p} for {t} since it is cheaper, quieter and closer to {n}'s place.",
    "The error was: connection refused on port {k} while {t} ran {w}.",
    "{n}: that sounds amazing, I wish I could have seen {t} with you in {p}!",
    "Why did {n} feel {f} {w}?",
    "What does {n} plan to do about {t}?",
    "Note {k}: {t} costs {k} dollars a month and renews {w}.",
]
LINEARS = [
    f"layer{i}.{kind}.matmul"
    for i in range(6)
    for kind in ("qkv", "attention_out", "intermediate", "output")
]


def calibration(count: int = 400, seed: int = 25) -> list[str]:
    """Memory- and chat-like sentences from templates, plus the edge cases."""
    rng = random.Random(seed)
    texts = []
    for i in range(count):
        slots = {
            "n": rng.choice(NAMES),
            "p": rng.choice(PLACES),
            "t": rng.choice(THINGS),
            "f": rng.choice(FEELINGS),
            "w": rng.choice(WHEN),
            "k": rng.randint(2, 9000),
        }
        texts.append(TEMPLATES[i % len(TEMPLATES)].format(**slots))
    return texts + ["ok", "", "thanks!", "word " * 300]


class _Calibration:
    """onnxruntime's CalibrationDataReader over our token ids, one text per pass (padded to
    128 pieces for the histogram methods, which need one shape)."""

    def __init__(self, texts: list[str], fixed: bool) -> None:
        tokenizer = load_word_piece_tokenizer(bundled_model_dir())
        feeds = [_padded(ids, fixed) for ids in token_ids(tokenizer, texts)]
        self._feeds = iter(feeds)

    def get_next(self) -> dict | None:
        feed = next(self._feeds, None)
        return None if feed is None else {"input_ids": feed[0], "attention_mask": feed[1]}


def _padded(ids: list[int], fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    padded, mask = pad([ids[:128]])
    if not fixed:
        return padded, mask
    out, out_mask = np.zeros((1, 128), np.int64), np.zeros((1, 128), np.int64)
    out[:, : padded.shape[1]], out_mask[:, : mask.shape[1]] = padded, mask
    return out, out_mask


def static(fp32: Path, out: Path, *, per_channel: bool, method: str, keep: list[str]) -> None:
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    calibrate = getattr(CalibrationMethod, method)
    quantize_static(
        str(fp32),
        str(out),
        _Calibration(calibration(), fixed=calibrate != CalibrationMethod.MinMax),
        quant_format=QuantFormat.QDQ,
        op_types_to_quantize=["MatMul"],
        nodes_to_quantize=[n for n in LINEARS if n not in keep],
        per_channel=per_channel,
        reduce_range=True,  # 7-bit weights: u8 x s8 cannot saturate without VNNI
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        calibrate_method=calibrate,
    )


def dynamic(fp32: Path, out: Path, *, keep: list[str]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(fp32), str(out), weight_type=QuantType.QUInt8, per_channel=True, nodes_to_exclude=keep
    )


def _kept(kind: str) -> list[str]:
    return [n for n in LINEARS if f".{kind}." in n or n.startswith(f"{kind}.")]


VARIANTS: dict[str, tuple[Callable, dict, bool]] = {  # builder, options, each text alone
    "static-minmax": (static, {"per_channel": False, "method": "MinMax", "keep": []}, False),
    "static-minmax-per-channel": (
        static,
        {"per_channel": True, "method": "MinMax", "keep": []},
        False,
    ),
    "static-percentile-per-channel": (
        static,
        {"per_channel": True, "method": "Percentile", "keep": []},
        False,
    ),
    "static-per-channel-ffn-out-fp32": (
        static,
        {"per_channel": True, "method": "MinMax", "keep": _kept("output")},
        False,
    ),
    "dynamic-batched": (dynamic, {"keep": []}, False),
    "dynamic-per-text": (dynamic, {"keep": []}, True),
    **{
        f"dynamic-per-text-{part}-fp32": (dynamic, {"keep": _kept(part)}, True)
        for part in [f"layer{i}" for i in range(6)]
        + ["qkv", "attention_out", "intermediate", "output"]
    },
}


class _Alone:
    def __init__(self, embedder: SessionEmbedder) -> None:
        self._embedder = embedder

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        return np.concatenate([self._embedder.embed_sync([t]) for t in texts])


def measure(
    name: str, directory: Path, fp32: Path, reference: np.ndarray, texts: list[str]
) -> dict:
    build, options, alone = VARIANTS[name]
    path = directory / f"{name}.onnx"
    build(fp32, path, **options)
    session = ort.InferenceSession(str(path), session_options(1))
    embedder = SessionEmbedder(session, bundled_model_dir())
    each = _Alone(embedder) if alone else embedder
    singles = np.stack([each.embed_sync([t])[0] for t in texts])
    cosines = np.sum(singles * reference, axis=1)
    batched = np.sum(each.embed_sync(texts) * singles, axis=1)
    began = time.process_time()
    for text in sentences(100):
        each.embed_sync([text])
    return {
        "variant": name,
        "cos_min": round(float(cosines.min()), 4),
        "cos_median": round(float(np.median(cosines)), 4),
        "alone_vs_batched_min": round(float(batched.min()), 5),
        "cpu_ms_per_sentence": round((time.process_time() - began) * 10, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", choices=sorted(VARIANTS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memhive-encoder-variants-") as tmp:
        directory = Path(tmp)
        fp32_embedder = OnnxMiniLmEmbedder(directory)
        fp32 = graph_cache_path(directory, graph_cache_key(bundled_model_dir()))
        texts = calibration(300, seed=7)  # not the calibration set itself
        reference = fp32_embedder.embed_sync(texts)
        for name in args.only or VARIANTS:
            print(json.dumps(measure(name, directory, fp32, reference, texts)), flush=True)


if __name__ == "__main__":
    main()
