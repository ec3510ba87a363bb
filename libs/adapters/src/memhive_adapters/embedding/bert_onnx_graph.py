"""A BERT-family sentence encoder (all-MiniLM-L6-v2, or MPNet's all-mpnet-base-v2) as an ONNX
graph, built node by node from the weights NumPy reads.

Our weights and our graph: no exporter, no torch, no third-party export. The graph computes
what `bert_encoder.encode` + `pooling` compute (embeddings, post-LayerNorm encoder blocks with
erf GELU, mean pooling over real tokens, L2 normalisation) in plain ONNX operators (opset 17),
which any ONNX runtime runs. onnxruntime's optimiser fuses bias + GELU and the score scaling
into its own kernels; writing its contrib Attention/SkipLayerNormalization operators by hand
measured no faster here (docs/benchmarks.md), so the graph stays standard.

Inputs `input_ids` and `attention_mask` (batch, tokens) int64; output `sentence_embedding`
(batch, hidden) float32, unit rows.
"""

from __future__ import annotations

from itertools import count

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from memhive_adapters.embedding.bert_weights import BertWeights, EncoderLayerWeights
from memhive_adapters.embedding.relative_positions import bias_by_distance

OPSET = 17  # LayerNormalization
IR_VERSION = 8  # what opset 17 needs; older than onnx's default, so any onnxruntime >= 1.14 runs it
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "sentence_embedding"
# What BertModel adds to the attention scores of padding, as bert_encoder does.
_MASKED_SCORE = float(np.finfo(np.float32).min)


class GraphBuilder:
    """Nodes and initializers in the order they are added; every value gets a fresh name."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._ids = count()
        self._constants: set[str] = set()

    def constant(self, name: str, value: np.ndarray | float | list[int]) -> str:
        """An initializer; a name given twice is the same constant (the first value kept)."""
        if name not in self._constants:
            array = np.asarray(value, dtype=np.int64 if isinstance(value, list) else np.float32)
            self.initializers.append(numpy_helper.from_array(array, name))
            self._constants.add(name)
        return name

    def op(self, op_type: str, *inputs: str, name: str = "", **attributes: object) -> str:
        """One node; its output (and the node) is called `name`, or a fresh name."""
        output = name or f"{op_type.lower()}_{next(self._ids)}"
        node = helper.make_node(op_type, list(inputs), [output], name=output, **attributes)
        self.nodes.append(node)
        return output


def build_sentence_graph(weights: BertWeights) -> onnx.ModelProto:
    """The whole model: token ids and mask in, unit sentence vectors out."""
    graph = GraphBuilder()
    hidden = embeddings(graph, weights)
    score_bias = padding_score_bias(graph)
    if weights.relative_attention_bias is not None:
        score_bias = graph.op("Add", score_bias, relative_score_bias(graph, weights))
    for index, layer in enumerate(weights.layers):
        hidden = encoder_layer(graph, weights, layer, f"layer{index}.", hidden, score_bias)
    graph.nodes.append(helper.make_node("Identity", [_pool_and_normalise(graph, hidden)], [OUTPUT]))
    return _model(graph, weights.word_embeddings.shape[1])


def _model(graph: GraphBuilder, width: int) -> onnx.ModelProto:
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in INPUTS
    ]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", width])
    body = helper.make_graph(graph.nodes, "sentence-encoder", inputs, [output], graph.initializers)
    model = helper.make_model(
        body, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="memhive"
    )
    model.ir_version = IR_VERSION
    return model


def embeddings(graph: GraphBuilder, weights: BertWeights) -> str:
    words = graph.op(
        "Gather", graph.constant("word_embeddings", weights.word_embeddings), "input_ids"
    )
    tokens = graph.op("Shape", "input_ids", start=1, end=2)
    offset = graph.constant("position_offset", [weights.position_offset])
    positions = graph.op(
        "Slice",
        graph.constant("position_embeddings", weights.position_embeddings),
        offset,
        graph.op("Add", tokens, offset),
        graph.constant("axis0", [0]),
    )
    summed = graph.op("Add", words, positions)
    if weights.token_type_embeddings is not None:
        # Single sentences only, so every token has token type 0.
        token_type = graph.constant("token_type_0", weights.token_type_embeddings[0])
        summed = graph.op("Add", summed, token_type)
    norm = weights.embedding_norm
    return layer_norm(graph, "embeddings.norm.", summed, norm.scale, norm.shift, weights)


def padding_score_bias(graph: GraphBuilder) -> str:
    """(batch, 1, 1, tokens): 0 on real tokens, the most negative float32 on padding."""
    mask = graph.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    padding = graph.op("Sub", graph.constant("one", 1.0), mask)
    bias = graph.op("Mul", padding, graph.constant("masked_score", _MASKED_SCORE))
    return graph.op("Unsqueeze", bias, graph.constant("axes_1_2", [1, 2]))


def relative_score_bias(graph: GraphBuilder, weights: BertWeights) -> str:
    """(1, heads, tokens, tokens): MPNet's bias per head for each key's distance from its
    query, gathered from a table by distance (relative_positions.py), computed once and
    shared by every block."""
    most = weights.position_embeddings.shape[0] - weights.position_offset  # longest input
    table = graph.constant("relative_bias", bias_by_distance(weights.relative_attention_bias, most))
    tokens = graph.op("Squeeze", graph.op("Shape", "input_ids", start=1, end=2))
    first, step = (graph.op("Squeeze", graph.constant(f"scalar_{n}", [n])) for n in (0, 1))
    positions = graph.op("Range", first, tokens, step)
    keys = graph.op("Unsqueeze", positions, graph.constant("axis0", [0]))
    queries = graph.op("Unsqueeze", positions, graph.constant("axis_1", [1]))
    # key minus query, shifted to the table's column for that distance
    distance = graph.op("Sub", keys, queries)
    column = graph.op("Add", distance, graph.constant("distance_zero", [most - 1]))
    bias = graph.op("Gather", table, column, axis=1)
    return graph.op("Unsqueeze", bias, graph.constant("axis0", [0]))


def encoder_layer(
    graph: GraphBuilder,
    weights: BertWeights,
    layer: EncoderLayerWeights,
    prefix: str,
    hidden: str,
    score_bias: str,
) -> str:
    attended = _self_attention(graph, weights.num_heads, layer, prefix, hidden, score_bias)
    attended = linear(
        graph, prefix + "attention_out", attended, layer.attention_out, layer.attention_out_bias
    )
    norm = layer.attention_norm
    hidden = layer_norm(
        graph,
        prefix + "attention_norm.",
        graph.op("Add", attended, hidden),
        norm.scale,
        norm.shift,
        weights,
    )
    expanded = gelu(
        graph,
        linear(graph, prefix + "intermediate", hidden, layer.intermediate, layer.intermediate_bias),
    )
    output = linear(graph, prefix + "output", expanded, layer.output, layer.output_bias)
    norm = layer.output_norm
    return layer_norm(
        graph,
        prefix + "output_norm.",
        graph.op("Add", output, hidden),
        norm.scale,
        norm.shift,
        weights,
    )


def _self_attention(
    graph: GraphBuilder,
    num_heads: int,
    layer: EncoderLayerWeights,
    prefix: str,
    hidden: str,
    score_bias: str,
) -> str:
    width = layer.attention_out.shape[0]
    head_width = width // num_heads
    qkv = linear(graph, prefix + "qkv", hidden, layer.qkv, layer.qkv_bias)
    # (batch, tokens, 3 * width) -> three of (batch, heads, tokens, head_width)
    heads_shape = graph.constant(prefix + "heads_shape", [0, 0, num_heads, head_width])
    query, key, value = (
        graph.op("Transpose", graph.op("Reshape", part, heads_shape), perm=[0, 2, 1, 3])
        for part in _split(graph, qkv, 3)
    )
    scores = graph.op("MatMul", query, graph.op("Transpose", key, perm=[0, 1, 3, 2]))
    scale = graph.constant(prefix + "score_scale", 1.0 / float(np.sqrt(head_width)))
    scores = graph.op("Add", graph.op("Mul", scores, scale), score_bias)
    context = graph.op("MatMul", graph.op("Softmax", scores, axis=-1), value)
    context = graph.op("Transpose", context, perm=[0, 2, 1, 3])
    return graph.op("Reshape", context, graph.constant(prefix + "merged_shape", [0, 0, width]))


def _split(graph: GraphBuilder, value: str, parts: int) -> list[str]:
    outputs = [f"split_{len(graph.nodes)}_{part}" for part in range(parts)]
    graph.nodes.append(helper.make_node("Split", [value], outputs, axis=-1))
    return outputs


def linear(graph: GraphBuilder, name: str, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
    # Weights are already (in, out), as bert_weights lays them out for x @ W.
    product = graph.op("MatMul", x, graph.constant(name + ".weight", weight), name=name + ".matmul")
    return graph.op("Add", product, graph.constant(name + ".bias", bias))


def layer_norm(
    graph: GraphBuilder,
    prefix: str,
    x: str,
    scale: np.ndarray,
    shift: np.ndarray,
    weights: BertWeights,
) -> str:
    return graph.op(
        "LayerNormalization",
        x,
        graph.constant(prefix + "scale", scale),
        graph.constant(prefix + "shift", shift),
        axis=-1,
        epsilon=weights.layer_norm_eps,
    )


def gelu(graph: GraphBuilder, x: str) -> str:
    """x · Φ(x) with the exact erf, the pattern onnxruntime fuses into one Gelu kernel."""
    erf = graph.op("Erf", graph.op("Div", x, graph.constant("sqrt_two", np.sqrt(2.0))))
    one_plus = graph.op("Add", erf, graph.constant("one", 1.0))
    return graph.op("Mul", graph.op("Mul", x, one_plus), graph.constant("half", 0.5))


def _pool_and_normalise(graph: GraphBuilder, hidden: str) -> str:
    """Mean over real tokens, then unit length: sentence-transformers' Pooling + Normalize."""
    mask = graph.op(
        "Unsqueeze",
        graph.op("Cast", "attention_mask", to=TensorProto.FLOAT),
        graph.constant("axis_last", [-1]),
    )
    axis_tokens = graph.constant("axis_tokens", [1])
    summed = graph.op("ReduceSum", graph.op("Mul", hidden, mask), axis_tokens, keepdims=0)
    counts = graph.op("ReduceSum", mask, axis_tokens, keepdims=0)
    mean = graph.op("Div", summed, graph.op("Max", counts, graph.constant("min_count", 1e-9)))
    norm = graph.op("ReduceL2", mean, axes=[-1], keepdims=1)  # axes an attribute until opset 18
    return graph.op("Div", mean, graph.op("Max", norm, graph.constant("min_norm", 1e-12)))
