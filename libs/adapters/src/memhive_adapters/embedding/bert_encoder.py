"""A BERT encoder forward pass in NumPy: enough for sentence-transformers' MiniLM without torch.

The maths follows Hugging Face's BertModel in inference mode: embeddings + LayerNorm,
then per layer self-attention and a GELU feed-forward, each with a residual and LayerNorm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Abramowitz & Stegun 7.1.26 coefficients: |error| < 1.5e-7, far below float32 noise here.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_MASKED = np.float32(-1e9)


@dataclass(frozen=True)
class BertConfig:
    layers: int
    heads: int
    hidden: int
    layer_norm_eps: float


def erf(x: np.ndarray) -> np.ndarray:
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _ERF_P * a)
    poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU BERT was trained with, not the tanh approximation."""
    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class BertEncoder:
    def __init__(self, weights: dict[str, np.ndarray], config: BertConfig) -> None:
        self._w = {k: v.astype(np.float32) for k, v in weights.items()}
        self._config = config
        # Linear layers are stored (out, in); transposing once keeps the hot path to x @ W.
        for name in [k for k in self._w if k.endswith(".weight") and self._w[k].ndim == 2]:
            if ".dense." in name or ".self." in name:
                self._w[name] = np.ascontiguousarray(self._w[name].T)

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Token states (batch, seq, hidden) for padded ids and their mask (1 = real token)."""
        x = self._embed(input_ids)
        bias = np.where(attention_mask[:, None, None, :] > 0, np.float32(0), _MASKED)
        for layer in range(self._config.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        return x

    def _embed(self, input_ids: np.ndarray) -> np.ndarray:
        w, positions = self._w, np.arange(input_ids.shape[1])
        x = (
            w["embeddings.word_embeddings.weight"][input_ids]
            + w["embeddings.position_embeddings.weight"][positions][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        return self._norm(x, "embeddings.LayerNorm.")

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        attended = self._linear(
            self._attention(x, bias, p + "attention.self."), p + "attention.output.dense."
        )
        x = self._norm(x + attended, p + "attention.output.LayerNorm.")
        hidden = gelu(self._linear(x, p + "intermediate.dense."))
        return self._norm(x + self._linear(hidden, p + "output.dense."), p + "output.LayerNorm.")

    def _attention(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        batch, seq, hidden = x.shape
        heads = self._config.heads
        size = hidden // heads

        def split(name: str) -> np.ndarray:
            return (
                self._linear(x, p + name + ".")
                .reshape(batch, seq, heads, size)
                .transpose(0, 2, 1, 3)
            )

        q, k, v = split("query"), split("key"), split("value")
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        return (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)

    def _linear(self, x: np.ndarray, p: str) -> np.ndarray:
        return x @ self._w[p + "weight"] + self._w[p + "bias"]

    def _norm(self, x: np.ndarray, p: str) -> np.ndarray:
        return layer_norm(
            x, self._w[p + "weight"], self._w[p + "bias"], self._config.layer_norm_eps
        )
