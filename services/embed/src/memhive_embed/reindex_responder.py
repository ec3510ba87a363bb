"""Answers `memhive reindex` requests in the process that owns the lanes.

One job at a time: a request while one runs is refused. The job runs in the background;
its progress, and then its outcome, go to REINDEX_PROGRESS.<job_id> as ReindexProgress.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from memhive.v1.admin_pb2 import ReindexMemories, ReindexProgress
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, decode, encode
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from memhive_embed.reindex import Progress, Reindexer

log = logging.getLogger(__name__)

QUEUE_GROUP = "embed"


class ReindexResponder:
    def __init__(self, nats: NatsClient, reindexer: Reindexer) -> None:
        self._nats, self._reindexer = nats, reindexer
        self._sub: Subscription | None = None
        self._job: asyncio.Task | None = None

    async def start(self) -> None:
        # A queue group: with several embed replicas, one of them takes each request.
        self._sub = await self._nats.subscribe(
            subjects.REINDEX_MEMORIES, queue=QUEUE_GROUP, cb=self._on_request
        )
        await self._nats.flush()  # started = the server routes requests here (no "no responders")

    async def stop(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()
        if self._job is not None and not self._job.done():
            self._job.cancel()  # the pointer has not moved: the old generation stays current
            with contextlib.suppress(asyncio.CancelledError):
                await self._job
        await self._reindexer.close()

    async def _on_request(self, msg: Msg) -> None:
        try:
            request = decode(msg.data, ReindexMemories)
        except UndecodableMessage as exc:
            await msg.respond(encode(ReindexProgress(state="refused", reason=str(exc))))
            return
        refusal = self._refusal(request)
        reply = ReindexProgress(job_id=request.job_id, state="refused" if refusal else "accepted")
        if refusal:
            reply.reason = refusal
        else:
            self._job = asyncio.create_task(self._run(request))
        await msg.respond(encode(reply))

    def _refusal(self, request: ReindexMemories) -> str:
        if not request.job_id or "." in request.job_id:
            return "a job_id without dots is required"
        if self._job is not None and not self._job.done():
            return "a reindex is already running in this process"
        if request.workspace_ids and request.embedding_model:
            return "a new embedding model needs a full reindex (no --workspace)"
        return ""

    async def _run(self, request: ReindexMemories) -> None:
        async def report(progress: Progress) -> None:
            await self._publish(request.job_id, progress)

        try:
            if request.workspace_ids:
                final = await self._reindexer.repair(list(request.workspace_ids), report)
            else:
                final = await self._reindexer.rebuild(request.embedding_model or None, report)
        except Exception as exc:
            log.exception("reindex %s failed", request.job_id)
            failed = ReindexProgress(job_id=request.job_id, state="failed", reason=repr(exc))
            await self._nats.publish(subjects.reindex_progress(request.job_id), encode(failed))
            return
        await self._publish(request.job_id, final)

    async def _publish(self, job_id: str, progress: Progress) -> None:
        message = ReindexProgress(
            job_id=job_id,
            state=progress.state,
            done=progress.done,
            total=progress.total,
            generation=progress.generation,
            embedding_model=progress.embedding_model,
        )
        await self._nats.publish(subjects.reindex_progress(job_id), encode(message))
