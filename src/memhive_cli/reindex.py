"""`memhive reindex`: ask the process that owns the lanes to rebuild them, and watch it.

The request goes over NATS (the lanes' owner, `memhive run` or the embed service,
answers); progress comes back on a subject of the job's own, shown as a progress bar.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # imported where used: `memhive --help` must not load them
    from memhive.v1.admin_pb2 import ReindexMemories, ReindexProgress
    from memhive_application.audit_trail import AuditTrail
    from nats.aio.client import Client as NatsClient

FINISHED = ("done", "failed")


class ReindexUnavailable(RuntimeError):
    """Nobody answered, or the owner refused."""


def register(sub) -> None:
    p = sub.add_parser(
        "reindex", help="rebuild the recall lanes from the log while recall keeps serving"
    )
    p.add_argument(
        "--workspace",
        action="append",
        default=[],
        help="only rewrite this workspace in place (repeatable); default: a full rebuild",
    )
    p.add_argument("--embedding-model", default=None, help="re-embed with this model")
    p.add_argument(
        "--stall-timeout", type=float, default=300.0, help="give up after this long silent"
    )
    p.set_defaults(command=_do_reindex)


async def _do_reindex(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.connection import connect
    from memhive_adapters.nats.credentials import bus_credentials
    from memhive_contracts.bus_permissions import ADMIN

    from memhive_cli.load_settings import instance_settings

    settings = instance_settings()
    credentials = bus_credentials(settings, ADMIN)
    try:
        nc = await connect(
            settings.nats.url, name="memhive-reindex", timeout_s=5, credentials=credentials
        )
    except ConnectionError as exc:
        print(f"reindex: {exc}", file=sys.stderr)
        return 2
    from memhive_cli.operator import operator_trail

    try:
        final = await reindex(
            nc,
            args.workspace,
            args.embedding_model,
            args.stall_timeout,
            trail=operator_trail(nc.jetstream()),
        )
    except ReindexUnavailable as exc:
        print(f"reindex: {exc}", file=sys.stderr)
        return 2
    finally:
        await nc.drain()
    print(describe(final))
    return 0 if final.state == "done" else 1


async def reindex(
    nc: NatsClient,
    workspace_ids: Sequence[str] = (),
    embedding_model: str | None = None,
    stall_timeout_s: float = 300.0,
    out: TextIO | None = None,
    trail: AuditTrail | None = None,
) -> ReindexProgress:
    """Request a reindex and follow it to its end; returns the final report. With a trail,
    the request is audited (the operator's, in each workspace named, or the deployment's
    for a full rebuild): ok once the lanes' owner accepted it."""
    from memhive.v1.admin_pb2 import ReindexMemories, ReindexProgress
    from memhive_contracts import subjects
    from memhive_contracts.codec import decode
    from memhive_domain.audit import AuditAction

    from memhive_cli.operator import recording_in_each

    job_id = uuid.uuid4().hex
    updates: asyncio.Queue[ReindexProgress] = asyncio.Queue()

    async def on_progress(msg) -> None:
        updates.put_nowait(decode(msg.data, ReindexProgress))

    # Listen before asking, so not even the first report can be missed.
    sub = await nc.subscribe(subjects.reindex_progress(job_id), cb=on_progress)
    request = ReindexMemories(
        job_id=job_id, workspace_ids=list(workspace_ids), embedding_model=embedding_model or ""
    )
    try:
        audited = (
            recording_in_each(trail, workspace_ids, AuditAction.REINDEX, job_id)
            if trail is not None
            else contextlib.nullcontext()
        )
        async with audited:
            await _request(nc, request)
        return await _follow(updates, stall_timeout_s, out or sys.stderr)
    finally:
        await sub.unsubscribe()


async def _request(nc: NatsClient, request: ReindexMemories) -> None:
    from memhive.v1.admin_pb2 import ReindexProgress
    from memhive_contracts import subjects
    from memhive_contracts.codec import decode, encode
    from nats.errors import NoRespondersError
    from nats.errors import TimeoutError as NatsTimeoutError

    try:
        reply = await nc.request(subjects.REINDEX_MEMORIES, encode(request), timeout=10)
    except (NoRespondersError, NatsTimeoutError) as exc:
        raise ReindexUnavailable(
            "no memhive process that owns the lanes answered (is `memhive run` up?)"
        ) from exc
    answer = decode(reply.data, ReindexProgress)
    if answer.state != "accepted":
        raise ReindexUnavailable(f"refused: {answer.reason}")


async def _follow(
    updates: asyncio.Queue[ReindexProgress], stall_timeout_s: float, out: TextIO
) -> ReindexProgress:
    from tqdm import tqdm

    with tqdm(unit=" memories", desc="reindex", file=out, dynamic_ncols=True) as bar:
        while True:
            try:
                progress = await asyncio.wait_for(updates.get(), stall_timeout_s)
            except TimeoutError as exc:
                raise ReindexUnavailable(f"no progress for {stall_timeout_s:.0f} s") from exc
            if progress.total:
                bar.total = progress.total
                bar.update(progress.done - bar.n)
            if progress.state in FINISHED:
                return progress


def describe(progress: ReindexProgress) -> str:
    if progress.state == "failed":
        return f"reindex failed: {progress.reason} (the previous lanes keep serving)"
    return (
        f"reindexed {progress.done} memories into generation {progress.generation} "
        f"({progress.embedding_model})"
    )
