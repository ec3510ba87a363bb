"""Every memory's current record, read back in batches from the KV bucket's stream.

The bucket is a stream with one subject per memory (`$KV.<bucket>.<workspace>.<id>`);
asking for the last message per subject gives the current state of each memory exactly
once, which is what the lanes must hold. A throwaway consumer (in memory, no acks) reads
it, so nothing is left behind if the reader dies.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from memhive.v1.memory_pb2 import MemoryRecord
from memhive_contracts.codec import UndecodableMessage, decode
from memhive_contracts.mapping import memory_from_pb
from memhive_contracts.streams import MEMORIES_BUCKET
from memhive_domain.memory import Memory
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import FetchTimeoutError, NotFoundError

log = logging.getLogger(__name__)

FETCH_BATCH = 256
FETCH_TIMEOUT_S = 5.0
# Only for a replay whose process died (a live one deletes its consumer); long, because the
# caller embeds a whole batch between fetches, which took over 60 s on a loaded machine.
INACTIVE_THRESHOLD_S = 600.0
_STREAM = f"KV_{MEMORIES_BUCKET}"
_KV_OPERATION = "KV-Operation"


@dataclass(frozen=True, slots=True)
class RecordBatch:
    memories: list[Memory]  # forgotten ones included: the caller decides
    read: int  # records read so far, of `total`
    total: int
    sequence: int  # the highest stream sequence read so far: where a later catch-up starts


class RecordReplay:
    def __init__(self, js: JetStreamContext, batch: int = FETCH_BATCH) -> None:
        self._js, self._batch = js, batch

    async def batches(
        self, workspace_ids: Sequence[str] = (), after_sequence: int | None = None
    ) -> AsyncIterator[RecordBatch]:
        """Every memory of these workspaces (all when empty), in batches. after_sequence:
        instead, every record written after that stream sequence, oldest first (a memory
        written twice comes twice)."""
        config = _reader(workspace_ids)
        if after_sequence is not None:
            config.deliver_policy = DeliverPolicy.BY_START_SEQUENCE
            config.opt_start_seq = after_sequence + 1
        info = await self._js.add_consumer(_STREAM, config=config)
        try:
            total = info.num_pending
            if not total:
                return
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=_STREAM)
            try:
                read = sequence = 0
                while read < total:
                    msgs = await self._fetch(sub)
                    read += len(msgs)
                    sequence = max(sequence, *(m.metadata.sequence.stream for m in msgs))
                    # Keys rewritten meanwhile come again after the snapshot: the caller's
                    # live writes cover those, and progress stays within the snapshot.
                    memories = [m for msg in msgs if (m := _memory(msg))]
                    yield RecordBatch(memories, min(read, total), total, sequence)
                    if msgs[-1].metadata.num_pending == 0:
                        return
            finally:
                await sub.unsubscribe()
        finally:
            # A caller slower than INACTIVE_THRESHOLD_S between fetches (a reindex embedding
            # a batch on a busy machine) finds it already dropped by the server: fine.
            with contextlib.suppress(NotFoundError):
                await self._js.delete_consumer(_STREAM, info.name)

    async def _fetch(self, sub: JetStreamContext.PullSubscription) -> list[Msg]:
        try:
            return await sub.fetch(self._batch, timeout=FETCH_TIMEOUT_S)
        except FetchTimeoutError as exc:
            raise RuntimeError("the record stopped answering during a replay") from exc


def _reader(workspace_ids: Sequence[str]) -> ConsumerConfig:
    filters = [f"$KV.{MEMORIES_BUCKET}.{ws}.*" for ws in workspace_ids]
    return ConsumerConfig(
        # Server-named: bus users may create unnamed readers only (a name could be a
        # durable of another service: bus_permissions).
        description="memhive replay reader",
        filter_subjects=filters or [f"$KV.{MEMORIES_BUCKET}.>"],
        deliver_policy=DeliverPolicy.LAST_PER_SUBJECT,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=INACTIVE_THRESHOLD_S,
        mem_storage=True,
        num_replicas=1,
    )


def _memory(msg: Msg) -> Memory | None:
    if (msg.headers or {}).get(_KV_OPERATION) in ("DEL", "PURGE") or not msg.data:
        return None
    try:
        return memory_from_pb(decode(msg.data, MemoryRecord).memory)
    except (UndecodableMessage, KeyError, ValueError) as exc:
        # Not a record memhive wrote (the ingest path never indexes it either): one bad key
        # must not fail the rebuild of every other memory.
        log.warning("replay skips %s: not a memory record (%r)", msg.subject, exc)
        return None
