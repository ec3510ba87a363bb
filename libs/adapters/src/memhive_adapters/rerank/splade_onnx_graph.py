"""SPLADE's encoder and the transform of its masked-LM head as one ONNX graph, run by
onnxruntime: what `bert_encoder.encode` then dense + GELU + LayerNorm compute in NumPy, in
about half the CPU (docs/benchmarks.md, "A memory's terms at less CPU"). The whole-vocabulary
product stays in NumPy: OpenBLAS runs it faster than onnxruntime at a memory's length.

Built from MiniLM's graph pieces (`bert_onnx_graph`, the same BERT), in memory at start
(~60 ms; the graph is small, so nothing is cached on disk). Inputs `input_ids` and
`attention_mask` (batch, tokens) int64; output `transformed` (batch, tokens, width).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from memhive_adapters.embedding import bert_onnx_graph as bert
from memhive_adapters.embedding.onnx_minilm import session_options
from memhive_adapters.rerank.splade_weights import SpladeWeights

OUTPUT = "transformed"


def open_head_input_session(weights: SpladeWeights, threads: int) -> ort.InferenceSession:
    graph = build_head_input_graph(weights).SerializeToString()
    return ort.InferenceSession(graph, session_options(threads), providers=["CPUExecutionProvider"])


def head_input(session: ort.InferenceSession, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(batch, tokens, width): each token's input to the word embeddings' product."""
    return session.run([OUTPUT], {"input_ids": ids, "attention_mask": mask})[0]


def build_head_input_graph(weights: SpladeWeights) -> onnx.ModelProto:
    graph = bert.GraphBuilder()
    encoder, head = weights.encoder, weights.head
    hidden = bert.embeddings(graph, encoder)
    score_bias = bert.padding_score_bias(graph)
    for index, layer in enumerate(encoder.layers):
        hidden = bert.encoder_layer(graph, encoder, layer, f"layer{index}.", hidden, score_bias)
    dense = bert.linear(graph, "head.transform", hidden, head.transform, head.transform_bias)
    normed = bert.layer_norm(
        graph, "head.norm.", bert.gelu(graph, dense), head.norm_scale, head.norm_shift, encoder
    )
    graph.nodes.append(helper.make_node("Identity", [normed], [OUTPUT]))
    return _model(graph, encoder.word_embeddings.shape[1])


def _model(graph: bert.GraphBuilder, width: int) -> onnx.ModelProto:
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in bert.INPUTS
    ]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", "tokens", width])
    body = helper.make_graph(graph.nodes, "splade-head-input", inputs, [output], graph.initializers)
    model = helper.make_model(
        body, opset_imports=[helper.make_opsetid("", bert.OPSET)], producer_name="memhive"
    )
    model.ir_version = bert.IR_VERSION
    return model
