"""A deliberately plain all-MiniLM-L6-v2 sentence embedding, to check the fast one against.

One sentence at a time, token by token, in float64, straight from the safetensors names in
their torch layout (out, in), with math.erf: nothing shared with the adapter but the files.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer


class NaiveMiniLm:
    def __init__(self, model_dir: Path) -> None:
        self.config = json.loads((model_dir / "config.json").read_text())
        self.w = {
            k: v.astype(np.float64) for k, v in load_file(model_dir / "model.safetensors").items()
        }
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()

    def embed(self, sentence: str) -> list[float]:
        ids = self.tokenizer.encode(sentence).ids
        states = [self._embedding(token, position) for position, token in enumerate(ids)]
        for layer in range(self.config["num_hidden_layers"]):
            states = self._layer(f"encoder.layer.{layer}.", states)
        mean = [sum(column) / len(states) for column in zip(*states, strict=True)]
        norm = math.sqrt(sum(value * value for value in mean))
        return [value / norm for value in mean]

    def _embedding(self, token: int, position: int) -> np.ndarray:
        summed = (
            self.w["embeddings.word_embeddings.weight"][token]
            + self.w["embeddings.position_embeddings.weight"][position]
            + self.w["embeddings.token_type_embeddings.weight"][0]
        )
        return self._norm("embeddings.LayerNorm.", summed)

    def _layer(self, prefix: str, states: list[np.ndarray]) -> list[np.ndarray]:
        attended = self._attention(prefix + "attention.self.", states)
        out = []
        for state, context in zip(states, attended, strict=True):
            projected = self._dense(prefix + "attention.output.dense.", context)
            middle = self._norm(prefix + "attention.output.LayerNorm.", projected + state)
            expanded = self._dense(prefix + "intermediate.dense.", middle)
            activated = np.array([x * 0.5 * (1.0 + math.erf(x / math.sqrt(2.0))) for x in expanded])
            output = self._dense(prefix + "output.dense.", activated)
            out.append(self._norm(prefix + "output.LayerNorm.", output + middle))
        return out

    def _attention(self, prefix: str, states: list[np.ndarray]) -> list[np.ndarray]:
        heads = self.config["num_attention_heads"]
        width = len(states[0]) // heads
        queries = [self._dense(prefix + "query.", s) for s in states]
        keys = [self._dense(prefix + "key.", s) for s in states]
        values = [self._dense(prefix + "value.", s) for s in states]
        contexts = []
        for query in queries:
            context = np.zeros(len(query))
            for head in range(heads):
                part = slice(head * width, (head + 1) * width)
                scores = [float(query[part] @ key[part]) / math.sqrt(width) for key in keys]
                top = max(scores)
                exps = [math.exp(score - top) for score in scores]
                for weight, value in zip(exps, values, strict=True):
                    context[part] += weight / sum(exps) * value[part]
            contexts.append(context)
        return contexts

    def _dense(self, prefix: str, x: np.ndarray) -> np.ndarray:
        return self.w[prefix + "weight"] @ x + self.w[prefix + "bias"]

    def _norm(self, prefix: str, x: np.ndarray) -> np.ndarray:
        mean = sum(x) / len(x)
        variance = sum((value - mean) ** 2 for value in x) / len(x)
        scaled = (x - mean) / math.sqrt(variance + self.config["layer_norm_eps"])
        return scaled * self.w[prefix + "weight"] + self.w[prefix + "bias"]
