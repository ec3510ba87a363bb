"""The weights of a BERT-family encoder (BERT itself, or MPNet), read from safetensors and laid
out for row-major matmuls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

Array = np.ndarray


@dataclass(frozen=True, slots=True)
class LayerNormWeights:
    scale: Array
    shift: Array


@dataclass(frozen=True, slots=True)
class EncoderLayerWeights:
    # Query, key and value projections side by side: one matmul instead of three.
    qkv: Array
    qkv_bias: Array
    attention_out: Array
    attention_out_bias: Array
    attention_norm: LayerNormWeights
    intermediate: Array
    intermediate_bias: Array
    output: Array
    output_bias: Array
    output_norm: LayerNormWeights


@dataclass(frozen=True, slots=True)
class BertWeights:
    word_embeddings: Array
    position_embeddings: Array
    token_type_embeddings: Array | None  # None: MPNet has no token types
    embedding_norm: LayerNormWeights
    layers: tuple[EncoderLayerWeights, ...]
    num_heads: int
    layer_norm_eps: float
    # MPNet: the first token's position (its padding index + 1), and a score bias per head
    # for each bucket of relative distance (buckets, heads), shared by every block.
    position_offset: int = 0
    relative_attention_bias: Array | None = None


def load_bert_weights(model_dir: Path) -> BertWeights:
    """Weights from `model.safetensors` and the shape of the model from `config.json`, laid
    out as BertModel or MPNetModel names them."""
    config = json.loads((model_dir / "config.json").read_text())
    tensors = load_file(model_dir / "model.safetensors")
    if config.get("model_type") == "mpnet":
        return mpnet_weights_of(tensors, config)
    return bert_weights_of(tensors, config)


@dataclass(frozen=True, slots=True)
class _AttentionNames:
    """Where a block's attention weights are, under the block's prefix: the rest of a block
    (intermediate, output and their LayerNorm) is named alike in BERT and MPNet."""

    projections: tuple[str, str, str]  # query, key, value
    output: str
    norm: str


_BERT = _AttentionNames(
    ("attention.self.query", "attention.self.key", "attention.self.value"),
    "attention.output.dense",
    "attention.output.LayerNorm.",
)
_MPNET = _AttentionNames(
    ("attention.attn.q", "attention.attn.k", "attention.attn.v"),
    "attention.attn.o",
    "attention.LayerNorm.",
)


def bert_weights_of(tensors: dict[str, Array], config: dict) -> BertWeights:
    """The encoder's weights from a checkpoint's tensors, named as BertModel names them."""
    return BertWeights(
        word_embeddings=_f32(tensors["embeddings.word_embeddings.weight"]),
        position_embeddings=_f32(tensors["embeddings.position_embeddings.weight"]),
        token_type_embeddings=_f32(tensors["embeddings.token_type_embeddings.weight"]),
        embedding_norm=_layer_norm(tensors, "embeddings.LayerNorm."),
        layers=_layers(tensors, config, _BERT),
        num_heads=config["num_attention_heads"],
        layer_norm_eps=float(config["layer_norm_eps"]),
    )


def mpnet_weights_of(tensors: dict[str, Array], config: dict) -> BertWeights:
    """The encoder's weights as MPNetModel names them: BERT's blocks with q/k/v/o
    projections, no token types, positions counted from the padding index + 1, and a
    relative-position bias (what sentence-transformers' all-mpnet-base-v2 is)."""
    return BertWeights(
        word_embeddings=_f32(tensors["embeddings.word_embeddings.weight"]),
        position_embeddings=_f32(tensors["embeddings.position_embeddings.weight"]),
        token_type_embeddings=None,
        embedding_norm=_layer_norm(tensors, "embeddings.LayerNorm."),
        layers=_layers(tensors, config, _MPNET),
        num_heads=config["num_attention_heads"],
        layer_norm_eps=float(config["layer_norm_eps"]),
        position_offset=int(config["pad_token_id"]) + 1,
        relative_attention_bias=_f32(tensors["encoder.relative_attention_bias.weight"]),
    )


def _layers(
    tensors: dict[str, Array], config: dict, names: _AttentionNames
) -> tuple[EncoderLayerWeights, ...]:
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"unsupported activation {config.get('hidden_act')!r}")
    return tuple(
        _encoder_layer(tensors, f"encoder.layer.{i}.", names)
        for i in range(config["num_hidden_layers"])
    )


def _encoder_layer(
    tensors: dict[str, Array], prefix: str, names: _AttentionNames
) -> EncoderLayerWeights:
    projections = [tensors[f"{prefix}{name}.weight"] for name in names.projections]
    biases = [tensors[f"{prefix}{name}.bias"] for name in names.projections]
    return EncoderLayerWeights(
        qkv=_linear(np.concatenate(projections, axis=0)),
        qkv_bias=_f32(np.concatenate(biases)),
        attention_out=_linear(tensors[f"{prefix}{names.output}.weight"]),
        attention_out_bias=_f32(tensors[f"{prefix}{names.output}.bias"]),
        attention_norm=_layer_norm(tensors, prefix + names.norm),
        intermediate=_linear(tensors[prefix + "intermediate.dense.weight"]),
        intermediate_bias=_f32(tensors[prefix + "intermediate.dense.bias"]),
        output=_linear(tensors[prefix + "output.dense.weight"]),
        output_bias=_f32(tensors[prefix + "output.dense.bias"]),
        output_norm=_layer_norm(tensors, prefix + "output.LayerNorm."),
    )


def _layer_norm(tensors: dict[str, Array], prefix: str) -> LayerNormWeights:
    return LayerNormWeights(_f32(tensors[prefix + "weight"]), _f32(tensors[prefix + "bias"]))


def _linear(weight: Array) -> Array:
    # torch stores Linear weights as (out, in); x @ W.T wants (in, out), contiguous for BLAS.
    return np.ascontiguousarray(weight.T, dtype=np.float32)


def _f32(tensor: Array) -> Array:
    return np.ascontiguousarray(tensor, dtype=np.float32)
