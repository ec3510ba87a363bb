"""A BERT encoder forward pass in NumPy: token ids in, one hidden state per token out.

Inference only (no dropout), float32 throughout, the same arithmetic as Hugging Face's
BertModel: post-LayerNorm blocks, erf GELU, padding masked by a large negative score; and
MPNetModel's, where the weights carry a relative-position bias (relative_positions.py).
"""

from __future__ import annotations

import numpy as np

from memhive_adapters.embedding.activations import gelu, layer_norm, softmax
from memhive_adapters.embedding.bert_weights import BertWeights, EncoderLayerWeights
from memhive_adapters.embedding.relative_positions import position_bias

# What BertModel adds to the attention scores of padding: the most negative float32.
_MASKED_SCORE = np.finfo(np.float32).min


def encode(weights: BertWeights, token_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Hidden states (batch, tokens, hidden) for `token_ids` (batch, tokens), padding masked 0."""
    hidden = _embed(weights, token_ids)
    score_bias = np.where(attention_mask[:, None, None, :] > 0, 0.0, _MASKED_SCORE)
    score_bias = score_bias.astype(np.float32)
    if weights.relative_attention_bias is not None:
        score_bias = score_bias + position_bias(weights.relative_attention_bias, hidden.shape[1])
    for layer in weights.layers:
        hidden = _encoder_layer(weights, layer, hidden, score_bias)
    return hidden


def _embed(weights: BertWeights, token_ids: np.ndarray) -> np.ndarray:
    offset = weights.position_offset
    positions = weights.position_embeddings[offset : offset + token_ids.shape[1]]
    summed = weights.word_embeddings[token_ids] + positions
    if weights.token_type_embeddings is not None:
        # Single sentences only, so every token has token type 0.
        summed = summed + weights.token_type_embeddings[0]
    norm = weights.embedding_norm
    return layer_norm(summed, norm.scale, norm.shift, weights.layer_norm_eps)


def _encoder_layer(
    weights: BertWeights, layer: EncoderLayerWeights, hidden: np.ndarray, score_bias: np.ndarray
) -> np.ndarray:
    eps = weights.layer_norm_eps
    attended = _linear(
        _self_attention(weights.num_heads, layer, hidden, score_bias),
        layer.attention_out,
        layer.attention_out_bias,
    )
    hidden = layer_norm(
        attended + hidden, layer.attention_norm.scale, layer.attention_norm.shift, eps
    )
    expanded = gelu(_linear(hidden, layer.intermediate, layer.intermediate_bias))
    output = _linear(expanded, layer.output, layer.output_bias)
    return layer_norm(output + hidden, layer.output_norm.scale, layer.output_norm.shift, eps)


def _self_attention(
    num_heads: int, layer: EncoderLayerWeights, hidden: np.ndarray, score_bias: np.ndarray
) -> np.ndarray:
    batch, tokens, width = hidden.shape
    head_width = width // num_heads
    qkv = _linear(hidden, layer.qkv, layer.qkv_bias)
    # (batch, tokens, 3, heads, head_width) -> (3, batch, heads, tokens, head_width)
    query, key, value = qkv.reshape(batch, tokens, 3, num_heads, head_width).transpose(
        2, 0, 3, 1, 4
    )
    scores = query @ key.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head_width))
    context = softmax(scores + score_bias) @ value
    return context.transpose(0, 2, 1, 3).reshape(batch, tokens, width)


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    # One 2-D GEMM over every token of the batch is faster than a batched 3-D matmul.
    rows = x.reshape(-1, x.shape[-1]) @ weight
    rows += bias
    return rows.reshape(*x.shape[:-1], weight.shape[1])
