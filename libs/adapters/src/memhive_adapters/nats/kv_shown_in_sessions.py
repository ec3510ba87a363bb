"""ShownInSessions on a JetStream KV bucket, so every gateway replica knows what a session
was shown: behind a load balancer, an agent's session start and its prompts reach different
replicas (`memhive hook` opens a new connection each time).

One key per session (a digest of workspace, user and session id: a session id is the
agent's and may hold any character), its ids one per line, the last `max_ids` kept. The
bucket's max age forgets a session idle 12 hours (`streams.HOOK_SESSIONS_MAX_AGE_S`), and a
full bucket the sessions written longest ago (`connection.evict_oldest_when_full`).
Best effort, as the port says: a read or write the bus refuses is logged, and costs a
memory shown twice rather than the hook's answer. So is a bucket not declared yet (a
distributed deployment upgraded without `memhive declare-streams`): the gateway starts and
serves, says once what to run, and binds the bucket as soon as it exists. Below the data
dir's low-space watermark (`free_space.py`) nothing is written: the hook still answers
(reads go on), and its session may see a memory again, which costs less than the room the
watermark keeps free.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence

from memhive_contracts.streams import HOOK_SESSIONS_BUCKET
from memhive_ports.agent_sessions import SessionKey
from memhive_ports.faults import BusUnavailable
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.errors import BucketNotFoundError, KeyNotFoundError
from nats.js.kv import KeyValue

from memhive_adapters.free_space import FreeSpace

log = logging.getLogger(__name__)

MAX_IDS = 200  # a session is shown a few memories a prompt; ~7.4 KB a key at most
_BUS_FAILURES = (NatsError, TimeoutError, BusUnavailable)


class KvShownInSessions:
    def __init__(
        self,
        js: JetStreamContext,
        *,
        space: FreeSpace | None = None,
        bucket: str = HOOK_SESSIONS_BUCKET,
        max_ids: int = MAX_IDS,
    ) -> None:
        """`space`: the data dir's low-space watermark, below which nothing is kept."""
        self._js, self._space, self._bucket, self._max_ids = js, space, bucket, max_ids
        self._kv: KeyValue | None = None
        self._said_missing = False

    async def ids(self, key: SessionKey) -> list[str] | None:
        try:
            entry = await (await self._bucket_kv()).get(_key(key))
        except KeyNotFoundError:  # never shown anything, or idle past the bucket's max age
            return []
        except _BUS_FAILURES as exc:
            log.warning("what session %r was shown is unknown (%r): it may repeat", key[2], exc)
            return None
        return entry.value.decode().split("\n") if entry.value else []

    async def keep(self, key: SessionKey, memory_ids: Sequence[str]) -> None:
        if self._space is not None and self._space.low:  # it logs the low spell once
            return
        kept = list(dict.fromkeys(memory_ids))[-self._max_ids :]
        try:
            await (await self._bucket_kv()).put(_key(key), "\n".join(kept).encode())
        except _BUS_FAILURES as exc:
            log.warning("what session %r was shown was not kept (%r)", key[2], exc)

    async def _bucket_kv(self) -> KeyValue:
        if self._kv is None:
            try:
                self._kv = await self._js.key_value(self._bucket)
            except BucketNotFoundError:
                if not self._said_missing:
                    self._said_missing = True
                    log.warning(
                        "KV bucket %s does not exist: run `memhive declare-streams` with the "
                        "bus admin's credentials; until then agents' sessions may be shown a "
                        "memory twice",
                        self._bucket,
                    )
                raise
        return self._kv


def _key(key: SessionKey) -> str:
    """Unambiguous whatever the parts hold (the session id is the caller's): their JSON."""
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:40]
