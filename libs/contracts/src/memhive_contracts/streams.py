"""JetStream streams and KV buckets: names and shapes, declared by whoever starts first."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

# The log: every command and event, kept for replay (reindex rebuilds projections from it).
LOG_STREAM = "MEMHIVE"
# memhive.sched.> holds schedules the stream fires into memhive.cmd.> (message schedules).
LOG_SUBJECTS = ("memhive.cmd.>", "memhive.evt.>", "memhive.upstream.>", "memhive.sched.>")

# Access activity: high volume, only needed until the counters absorb it.
ACTIVITY_STREAM = "MEMHIVE_ACTIVITY"
ACTIVITY_SUBJECTS = ("memhive.activity.>",)
ACTIVITY_MAX_AGE_S = 7 * 24 * 3600

# Poison messages, with the reason, for operators to inspect and replay.
DEAD_LETTER_STREAM = "MEMHIVE_DLQ"
DEAD_LETTER_SUBJECTS = ("memhive.dlq.>",)

# The audit log: who did what, kept a year (memhive.audit.<action>.<workspace>).
AUDIT_STREAM = "MEMHIVE_AUDIT"
AUDIT_SUBJECTS = ("memhive.audit.>",)
AUDIT_MAX_AGE_S = 366 * 24 * 3600

# How long JetStream remembers a Nats-Msg-Id, so a re-sent command is stored once.
DUPLICATE_WINDOW_S = 15 * 60


@dataclass(frozen=True, slots=True)
class StreamSpec:
    name: str
    subjects: tuple[str, ...]
    max_age_s: float = 0  # 0: keep forever
    schedules: bool = False  # holds message schedules (nats-server 2.12+); never turned off


STREAMS = (
    StreamSpec(LOG_STREAM, LOG_SUBJECTS, schedules=True),
    StreamSpec(ACTIVITY_STREAM, ACTIVITY_SUBJECTS, ACTIVITY_MAX_AGE_S),
    StreamSpec(DEAD_LETTER_STREAM, DEAD_LETTER_SUBJECTS),
    StreamSpec(AUDIT_STREAM, AUDIT_SUBJECTS, AUDIT_MAX_AGE_S),
)

MEMORIES_BUCKET = "memhive_memories"
TOKENS_BUCKET = "memhive_tokens"
# The latest bulletin per scope and audience (key: bulletin_key), a BulletinRefreshed each.
BULLETINS_BUCKET = "memhive_bulletins"
BULLETINS_HISTORY = 1
# One record per product (key: product_key), a Product each: the visibility its memories inherit.
PRODUCTS_BUCKET = "memhive_products"
KV_HISTORY = 16
# LLM spend shared by a consumer's replicas: one counter per `<consumer>.<window>` (a
# decimal), compare-and-set; windows are minutes and days, so two days of keys suffice.
SPEND_BUCKET = "memhive_spend"
SPEND_MAX_AGE_S = 2 * 24 * 3600
# Which lane generation every process serves (key: the lane set's collection and index
# names), watched by each process whose lanes are on a server.
LANES_BUCKET = "memhive_lanes"
# Key/value memory (key: kv_key), a KvEntry each. One message per key (history 1), so an
# entry whose TTL runs out is gone rather than replaced by its previous value; messages may
# carry a per-message TTL (Nats-TTL), which the bucket's stream allows.
KV_BUCKET = "memhive_kv"
KV_HISTORY = 1
KV_MAX_VALUE_BYTES = 64 * 1024  # the record: a 16 KiB JSON value plus its metadata
# What each agent session was shown by its hooks (key: a digest of workspace, user and
# session), shared by the gateway's replicas; a session idle 12 hours is forgotten, and the
# bucket is bounded: once full, the sessions written longest ago make room (a cache: a
# forgotten session costs a repeated line, not an answer).
HOOK_SESSIONS_BUCKET = "memhive_hook_sessions"
HOOK_SESSIONS_MAX_AGE_S = 12 * 3600
HOOK_SESSIONS_MAX_BYTES = 256 * 1024 * 1024


def memory_key(workspace_id: str, memory_id: str) -> str:
    return f"{workspace_id}.{memory_id}"


def bulletin_key(workspace_id: str, scope_token: str, audience: str) -> str:
    """scope_token: "global", or a product id encoded to KV-safe characters by the caller."""
    return f"{workspace_id}.{scope_token}.{audience}"


def product_key(workspace_id: str, product_token: str) -> str:
    """product_token: the product id encoded to KV-safe characters by the caller."""
    return f"{workspace_id}.{product_token}"


def kv_key(workspace_id: str, node_token: str, key_token: str) -> str:
    """node_token, key_token: the node path and the key encoded to KV-safe characters."""
    return f"{workspace_id}.{node_token}.{key_token}"


# Headers
MSG_ID_HEADER = "Nats-Msg-Id"
DLQ_REASON_HEADER = "Memhive-Dead-Letter-Reason"
DLQ_SUBJECT_HEADER = "Memhive-Original-Subject"
DLQ_CONSUMER_HEADER = "Memhive-Consumer"
DLQ_DELIVERIES_HEADER = "Memhive-Deliveries"


def batch_msg_id(prefix: str, event_ids: Iterable[str]) -> str:
    """The message id of one message standing for several events: a digest of their ids,
    whatever their order, so the same batch delivered again publishes the same message,
    which the stream then drops as a duplicate."""
    digest = hashlib.sha256("\n".join(sorted(event_ids)).encode()).hexdigest()[:32]
    return f"{prefix}-{digest}"
