"""The gateway's recall asks for a reader's encoder pass, which goes before the passes of
saves waiting (pass_queue.py); a save waiting for `indexed` asks for a writer's."""

from __future__ import annotations

import pytest
from memhive_adapters.embedding.pass_queue import Caller

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

BODY = "the readers-first queue went out on Tuesday"


async def test_a_recall_passes_as_a_reader_and_a_save_as_a_writer(
    stack: Stack, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = stack.infra.lane_set.current.embedder._callers
    asked: list[Caller] = []
    submit = queue.submit

    def noted(caller, work):
        asked.append(caller)
        return submit(caller, work)

    monkeypatch.setattr(queue, "submit", noted)
    saved = await save(workspace.member, kind="decision", body=BODY)
    assert asked == [Caller.WRITER]
    assert await recall_ids(workspace.member, "when did the queue go out") == [saved["id"]]
    assert asked == [Caller.WRITER, Caller.READER]
