"""Who may do what on the bus: one NATS user per service, each allowed only its own subjects.

Allow lists only (NATS denies whatever a user's list does not name). JetStream is reached
through subjects too, so the table also says which streams a user may read (`$JS.API`
consumer and get requests), which KV buckets it may write (`$KV.<bucket>.>`), and where its
replies arrive: every user has an inbox prefix of its own (`_INBOX_<user>`), because a
shared `_INBOX.>` would let any user read every other user's replies (KV reads, fetched
messages). docs/architecture.md, "The bus: users and permissions", has the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from memhive_contracts import streams, subjects

ADMIN = "admin"
QUERY = "query"
INGEST = "ingest"
EMBED = "embed"
LINK_CLASSIFIER = "link_classifier"
BULLETIN = "bulletin"
HOOK = "hook"

_JS = "$JS.API"
_BUCKETS = (
    streams.MEMORIES_BUCKET,
    streams.TOKENS_BUCKET,
    streams.BULLETINS_BUCKET,
    streams.PRODUCTS_BUCKET,
    streams.SPEND_BUCKET,
    streams.LANES_BUCKET,
    streams.KV_BUCKET,
    streams.HOOK_SESSIONS_BUCKET,
)
_MEMHIVE_STREAMS = (*(spec.name for spec in streams.STREAMS), *(f"KV_{b}" for b in _BUCKETS))


@dataclass(frozen=True, slots=True)
class BusPermissions:
    user: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    # May answer requests it received (publish to their reply subject), nothing more.
    allow_responses: bool = False


def inbox_prefix(user: str) -> str:
    return f"_INBOX_{user}"


def _inbox(user: str) -> tuple[str, ...]:
    return (f"{inbox_prefix(user)}.>",)


def _stream_info() -> tuple[str, ...]:
    """Checking that the streams and buckets exist (every service does at start)."""
    return tuple(f"{_JS}.STREAM.INFO.{name}" for name in _MEMHIVE_STREAMS)


def _consume(stream: str, durables: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Pull consumers on one stream: throwaway readers (server-named, no acks) and the
    user's own durables, the only ones it may create by name or acknowledge for."""
    return (
        f"{_JS}.CONSUMER.CREATE.{stream}",
        f"{_JS}.CONSUMER.INFO.{stream}.*",
        f"{_JS}.CONSUMER.MSG.NEXT.{stream}.*",
        f"{_JS}.CONSUMER.DELETE.{stream}.*",
        *(f"{_JS}.CONSUMER.CREATE.{stream}.{d}" for d in durables),
        *(f"{_JS}.CONSUMER.CREATE.{stream}.{d}.>" for d in durables),  # with a filter
        *(f"{_JS}.CONSUMER.DURABLE.CREATE.{stream}.{d}" for d in durables),
        *(f"$JS.ACK.{stream}.{d}.>" for d in durables),
    )


def _get(stream: str) -> tuple[str, ...]:
    """Reading single messages by key or sequence (KV get, dead letter lookup)."""
    return (
        f"{_JS}.DIRECT.GET.{stream}",
        f"{_JS}.DIRECT.GET.{stream}.>",
        f"{_JS}.STREAM.MSG.GET.{stream}",
    )


def _kv_read(bucket: str) -> tuple[str, ...]:
    return _get(f"KV_{bucket}")


def _kv_write(bucket: str) -> tuple[str, ...]:
    return (f"$KV.{bucket}.>",)


def _kv_watch(bucket: str) -> tuple[str, ...]:
    """A KV watch: an ordered push consumer on the bucket's stream, whose flow-control
    requests the client answers."""
    return (*_consume(f"KV_{bucket}"), f"$JS.FC.KV_{bucket}.>")


def _spend() -> tuple[str, ...]:
    """The LLM spend counters its replicas share (compare-and-set)."""
    return (*_kv_read(streams.SPEND_BUCKET), *_kv_write(streams.SPEND_BUCKET))


def _follow_lanes() -> tuple[str, ...]:
    """Every process that opens the lanes reads and watches which generation is current."""
    return (*_kv_read(streams.LANES_BUCKET), *_kv_watch(streams.LANES_BUCKET))


def _each_workspace(*subject_roots: str) -> tuple[str, ...]:
    return tuple(subjects.any_workspace(s) for s in subject_roots)


_DEAD_LETTERS = (subjects.dead_letter("*"),)

# The services' durable consumer names (their app modules; a unit test keeps them equal).
DURABLES: dict[str, tuple[str, ...]] = {
    INGEST: ("ingest", "ingest-upstream", "ingest-activity"),
    EMBED: ("embed",),
    LINK_CLASSIFIER: ("link-classifier",),
    BULLETIN: ("bulletin",),
}


def _service(user: str, publish: tuple[str, ...], subscribe: tuple[str, ...] = (), **kw):
    return BusPermissions(user, (*publish, *_stream_info()), (*subscribe, *_inbox(user)), **kw)


SERVICES: dict[str, BusPermissions] = {
    ADMIN: BusPermissions(ADMIN, (">",), (">",)),
    # The gateway: creates a saved memory's record and announces it (MemorySaved, and the
    # purge of one that expires), publishes every other change as a command to ingest,
    # waits for memory events, reads the log for revision history and the dead letters. It
    # reads the token bucket (authentication) and watches it (to drop revoked tokens at
    # once), but token changes are requests to ingest, which writes them; it appends to the
    # audit log and keeps the products' records and the key/value memory (the only service
    # that reads or writes it: compare-and-set writes, listing by a throwaway reader), and
    # what each agent session's hooks were shown. Its consolidation summaries share an LLM
    # spend bound.
    QUERY: _service(
        QUERY,
        (
            *_each_workspace(subjects.SAVE_MEMORY, subjects.FORGET_MEMORY, subjects.LINK_MEMORIES),
            *_each_workspace(subjects.UPDATE_MEMORY, subjects.MEMORIES_RECALLED),
            *_each_workspace(subjects.MEMORY_SAVED),
            f"{subjects.PURGE_SCHEDULES}.*.*",
            *_kv_read(streams.MEMORIES_BUCKET),
            *_kv_write(streams.MEMORIES_BUCKET),
            *_kv_read(streams.TOKENS_BUCKET),
            *_kv_watch(streams.TOKENS_BUCKET),
            f"{subjects.TOKEN_REQUESTS}.*",  # token changes: ingest answers
            *_kv_read(streams.BULLETINS_BUCKET),
            *_kv_write(streams.BULLETINS_BUCKET),  # a bulletin rendered on demand
            *_kv_read(streams.PRODUCTS_BUCKET),
            *_kv_write(streams.PRODUCTS_BUCKET),
            *_kv_watch(streams.PRODUCTS_BUCKET),
            *_kv_read(streams.KV_BUCKET),
            *_kv_write(streams.KV_BUCKET),
            *_consume(f"KV_{streams.KV_BUCKET}"),
            *_kv_read(streams.HOOK_SESSIONS_BUCKET),  # what agents' sessions were shown
            *_kv_write(streams.HOOK_SESSIONS_BUCKET),
            f"{subjects.AUDIT}.*.*",
            *_consume(streams.AUDIT_STREAM),
            *_consume(streams.LOG_STREAM),  # revision history, the dashboard's counts
            *_consume(streams.ACTIVITY_STREAM),  # the dashboard's recall counts
            *_get(streams.DEAD_LETTER_STREAM),
            *_follow_lanes(),
            *_spend(),
        ),
        (subjects.ALL_MEMORY_EVENTS,),
    ),
    # Ingest: applies commands and upstream events to the record, announces the result. It
    # is also the only service that writes tokens: it answers the gateway's token requests
    # (authenticating each request's credential itself) and records them in the audit log.
    INGEST: _service(
        INGEST,
        (
            subjects.ALL_MEMORY_EVENTS,  # saved, forgotten, linked, purged
            f"{subjects.PURGE_SCHEDULES}.*.*",  # the stream purges expired memories later
            *_DEAD_LETTERS,
            *_kv_read(streams.MEMORIES_BUCKET),
            *_kv_write(streams.MEMORIES_BUCKET),
            *_kv_read(streams.PRODUCTS_BUCKET),  # the visibility a product's memories inherit
            *_kv_watch(streams.PRODUCTS_BUCKET),  # ...read once, until a product changes
            *_kv_read(streams.TOKENS_BUCKET),
            *_kv_write(streams.TOKENS_BUCKET),
            f"{subjects.AUDIT}.*.*",
            *_consume(streams.LOG_STREAM, DURABLES[INGEST]),
            *_consume(streams.ACTIVITY_STREAM, DURABLES[INGEST]),
        ),
        (f"{subjects.TOKEN_REQUESTS}.*",),
        allow_responses=True,
    ),
    # Embed: indexes what the record holds, answers reindex requests (it owns the lanes).
    EMBED: _service(
        EMBED,
        (
            *_each_workspace(
                subjects.MEMORY_INDEXED, subjects.MEMORIES_INDEXED, subjects.MEMORY_UNINDEXED
            ),
            f"{subjects.REINDEX_PROGRESS}.*",
            *_DEAD_LETTERS,
            *_kv_read(streams.MEMORIES_BUCKET),
            *_consume(streams.LOG_STREAM, DURABLES[EMBED]),
            *_consume(f"KV_{streams.MEMORIES_BUCKET}"),  # reindex replays the record
            *_follow_lanes(),
            *_kv_write(streams.LANES_BUCKET),  # a reindex moves every process to its generation
        ),
        (subjects.REINDEX_MEMORIES,),
        allow_responses=True,
    ),
    # The link classifier: proposes edges as link commands; ingest applies them.
    LINK_CLASSIFIER: _service(
        LINK_CLASSIFIER,
        (
            *_each_workspace(subjects.LINK_MEMORIES),
            *_DEAD_LETTERS,
            *_kv_read(streams.MEMORIES_BUCKET),
            *_consume(streams.LOG_STREAM, DURABLES[LINK_CLASSIFIER]),
            *_follow_lanes(),
            *_spend(),
        ),
    ),
    BULLETIN: _service(
        BULLETIN,
        (
            *_each_workspace(subjects.BULLETIN_REFRESHED),
            *_DEAD_LETTERS,
            *_kv_read(streams.MEMORIES_BUCKET),
            *_kv_read(streams.BULLETINS_BUCKET),
            *_kv_write(streams.BULLETINS_BUCKET),
            *_consume(streams.LOG_STREAM, DURABLES[BULLETIN]),
            *_follow_lanes(),
            *_spend(),
        ),
    ),
}


def hook_user(workspace_id: str) -> str:
    return f"{HOOK}_{workspace_id}"


def hook(workspace_id: str) -> BusPermissions:
    """A hook of one workspace: publishes upstream events for that workspace, nothing else
    (no commands, no reading, no KV, no JetStream API; its inbox only gets publish acks)."""
    user = hook_user(workspace_id)
    upstream = f"{subjects.ALL_UPSTREAM[:-2]}.*.*.{workspace_id}"  # memhive.upstream.*.*.<ws>
    return BusPermissions(user, (upstream,), _inbox(user))
