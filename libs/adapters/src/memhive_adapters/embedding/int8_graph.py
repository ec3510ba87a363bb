"""The MiniLM graph with int8 matmuls: our fp32 graph, dynamically quantised, cached.

onnxruntime's `quantize_dynamic` turns each weight matmul into an integer one (weights
quantised once here, per output channel) whose activations are quantised on the fly with a
scale taken from the tensor itself. That scale spans every row of a batch, padding
included, so the embedder runs each text in a pass of its own: a text's vector then never
depends on what it is embedded with (docs/benchmarks.md, "Encoder (issue 25)").

Two codings of the weights, each its own encoder (its vectors differ):
- `SEVEN_BIT` (the default's): int8 weights in 7 bits (`reduce_range`). The activations are
  uint8, so the kernel is u8 x s8: one instruction where the CPU has VNNI (~1.9x u8 x u8's
  speed here), and on AVX2 alone an instruction whose int16 sums 7-bit weights cannot
  saturate: the same integer sums on either.
- `UINT8` (`.../int8-per-text-v1`): uint8 weights, a u8 x u8 kernel, which never saturates
  either but has no one-instruction form.
The first encoder block stays fp32: measured on generated sentences (not LoCoMo), keeping it
moves the vectors least from fp32's of any one block or any one kind of matmul kept.

The file is named and stamped like the fp32 graph's (onnx_graph_cache.py), its key also
covering this module, the coding and onnxruntime's version (whose quantiser writes the graph).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import onnxruntime as ort

from memhive_adapters.embedding.onnx_graph_cache import (
    CACHE_KEY_PROPERTY,
    digest_of,
    graph_cache_key,
    open_cached_session,
)

# The first block's four weight matmuls (bert_onnx_graph names them).
KEPT_FP32 = [f"layer0.{name}.matmul" for name in ("qkv", "attention_out", "intermediate", "output")]


@dataclass(frozen=True, slots=True)
class WeightCoding:
    """How the quantised matmuls keep their weights."""

    name: str  # in the cache file's name
    signed: bool  # int8 rather than uint8
    seven_bits: bool  # `reduce_range`: what an AVX2 u8 x s8 kernel needs to never saturate


SEVEN_BIT = WeightCoding("s7", signed=True, seven_bits=True)
UINT8 = WeightCoding("u8", signed=False, seven_bits=False)


def int8_cache_key(model_dir: Path, coding: WeightCoding) -> str:
    return digest_of([Path(__file__)], graph_cache_key(model_dir), ort.__version__, coding.name)


def int8_cache_path(cache_dir: Path, key: str, coding: WeightCoding) -> Path:
    return cache_dir / f"all-MiniLM-L6-v2.int8-{coding.name}.{key}.onnx"


def open_int8_session(
    model_dir: Path,
    cache_dir: Path,
    options: ort.SessionOptions,
    coding: WeightCoding,
) -> ort.InferenceSession:
    key = int8_cache_key(model_dir, coding)
    path = int8_cache_path(cache_dir, key, coding)
    return open_cached_session(
        path, key, lambda: serialised_int8_graph(model_dir, key, coding), options
    )


def serialised_int8_graph(model_dir: Path, key: str, coding: WeightCoding) -> bytes:
    """The quantised graph's bytes, its key stamped last. onnx and the quantiser are
    imported only here: a start that finds the graph cached loads neither."""
    import onnx
    from onnx import helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from memhive_adapters.embedding.bert_onnx_graph import build_sentence_graph
    from memhive_adapters.embedding.bert_weights import load_bert_weights

    fp32 = build_sentence_graph(load_bert_weights(model_dir))
    with tempfile.TemporaryDirectory(prefix="memhive-int8-") as directory, _quiet_quantiser():
        quantised = Path(directory) / "int8.onnx"
        quantize_dynamic(
            fp32,
            quantised,
            weight_type=QuantType.QInt8 if coding.signed else QuantType.QUInt8,
            per_channel=True,
            reduce_range=coding.seven_bits,
            nodes_to_exclude=KEPT_FP32,
        )
        model = onnx.load(quantised)
    helper.set_model_props(model, {CACHE_KEY_PROPERTY: key})
    return model.SerializeToString()


class _QuantiserNotes(logging.Filter):
    """onnxruntime's quantiser logs on the root logger itself: a line per matmul it leaves
    alone and per tensor it has no parameters for, and advice to pre-process first. The
    graph quantised this way is the one measured (docs/benchmarks.md), so a first `memhive
    run` shows none of it; errors still pass. Records of named loggers (all of memhive's)
    never meet this filter: a logger's filters see only its own records."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


@contextmanager
def _quiet_quantiser() -> Iterator[None]:
    notes = _QuantiserNotes()
    root = logging.getLogger()
    root.addFilter(notes)
    try:
        yield
    finally:
        root.removeFilter(notes)
