"""A save waiting for `indexed` carries its vector, so embed indexes it at once: never
behind the passes of a backlog that other callers' `accepted` saves left (VectorsFirst)."""

from __future__ import annotations

import asyncio

import pytest
from memhive_adapters.embedding.onnx_minilm import OnnxMiniLmEmbedder

from tests.integration.stack.conftest import Stack, Workspace, recall_ids

# A bound on a wait that must end, not a measure of speed: held behind the backlog, the
# indexed save would wait until the pass is let go, which happens only after this.
ANSWERED_WITHIN_S = 30


@pytest.fixture
def held_backlog(monkeypatch: pytest.MonkeyPatch):
    """Embed's backlog passes wait until the test lets them go; `reached` once one waits."""
    gate, reached = asyncio.Event(), asyncio.Event()
    original = OnnxMiniLmEmbedder.embed_in_background

    async def held(self, texts):
        reached.set()
        await gate.wait()
        return await original(self, texts)

    monkeypatch.setattr(OnnxMiniLmEmbedder, "embed_in_background", held)
    yield gate, reached
    gate.set()


async def test_an_indexed_save_is_answered_while_the_backlog_waits_for_its_pass(
    stack: Stack, workspace: Workspace, held_backlog
) -> None:
    gate, reached = held_backlog
    backlog = await workspace.member.post(
        "/v1/memories?wait=accepted",
        json={"kind": "event", "body": "The nightly export moved to 02:00 UTC", "force": True},
    )
    assert backlog.status_code == 202
    await asyncio.wait_for(reached.wait(), ANSWERED_WITHIN_S)  # its pass is held

    saving = asyncio.create_task(
        workspace.member.post(
            "/v1/memories?wait=indexed",
            json={"kind": "decision", "body": "Kofi owns the billing migration", "force": True},
        )
    )
    done, _ = await asyncio.wait([saving], timeout=ANSWERED_WITHIN_S)
    assert saving in done, "the indexed save waited behind the held pass"
    assert saving.result().status_code == 201 and saving.result().json()["status"] == "indexed"
    assert saving.result().json()["id"] in await recall_ids(workspace.member, "who owns billing?")

    gate.set()  # the backlog's memory is indexed in its turn
    held_id = backlog.json()["id"]
    for _ in range(200):
        if held_id in await recall_ids(workspace.member, "when does the nightly export run?"):
            break
        await asyncio.sleep(0.05)
    assert held_id in await recall_ids(workspace.member, "when does the nightly export run?")
