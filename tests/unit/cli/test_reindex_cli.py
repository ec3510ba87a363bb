"""`memhive reindex` follows the progress reports to the final one and explains the outcome."""

from __future__ import annotations

import asyncio
import io

import pytest
from memhive.v1.admin_pb2 import ReindexProgress

from memhive_cli.main import _parser
from memhive_cli.reindex import ReindexUnavailable, _follow, describe


async def test_it_follows_reports_until_the_job_is_done_and_draws_the_bar() -> None:
    updates: asyncio.Queue[ReindexProgress] = asyncio.Queue()
    for done, state in ((256, "running"), (300, "running"), (300, "swapped"), (300, "done")):
        updates.put_nowait(
            ReindexProgress(state=state, done=done, total=300, generation=2, embedding_model="m")
        )
    out = io.StringIO()
    final = await _follow(updates, 5, out)
    assert (final.state, final.done, final.generation) == ("done", 300, 2)
    assert "300/300" in out.getvalue() and "memories/s" in out.getvalue()
    assert describe(final) == "reindexed 300 memories into generation 2 (m)"


async def test_a_failure_ends_it_and_says_the_old_lanes_serve() -> None:
    updates: asyncio.Queue[ReindexProgress] = asyncio.Queue()
    updates.put_nowait(ReindexProgress(state="failed", reason="disk full"))
    final = await _follow(updates, 5, io.StringIO())
    assert describe(final) == "reindex failed: disk full (the previous lanes keep serving)"


async def test_silence_longer_than_the_stall_timeout_gives_up() -> None:
    with pytest.raises(ReindexUnavailable, match="no progress"):
        await _follow(asyncio.Queue(), 0.01, io.StringIO())


def test_the_command_takes_workspaces_and_a_model() -> None:
    args = _parser().parse_args(
        ["reindex", "--workspace", "a", "--workspace", "b", "--embedding-model", "m"]
    )
    assert (args.workspace, args.embedding_model) == (["a", "b"], "m")
