"""Connecting to NATS and declaring memhive's streams and KV buckets (idempotently)."""

from __future__ import annotations

import asyncio
import logging

from memhive_contracts import streams
from memhive_contracts.streams import StreamSpec
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import BucketNotFoundError, NotFoundError

from memhive_adapters.nats.bus_client import DEFAULT_REQUEST_TIMEOUT_S, BusClient
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.refusal import CredentialsRefused, Refusal, UntrustedServer

log = logging.getLogger(__name__)

RECONNECT_WAIT_S = 0.5
TOKENS_HISTORY = 1


async def connect(
    url: str,
    *,
    name: str,
    timeout_s: float,
    credentials: BusCredentials | None = None,
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
) -> BusClient:
    """A client that reconnects forever once connected (services outlive a NATS restart),
    but gives up on the first connection after `timeout_s`. Without credentials it connects
    anonymously (a server without authorization). Its requests fail as the ports say
    (`bus_client.py`) and wait at most `request_timeout_s` unless told otherwise."""
    client = BusClient(request_timeout_s)
    options = (
        _options(url, name, timeout_s)
        | _lifecycle_callbacks(client)
        | _credential_options(credentials)
    )
    refusal = Refusal(options.pop("error_cb"))
    try:
        await asyncio.wait_for(refusal.connect(client, options, f"NATS at {url}"), timeout_s)
    except TimeoutError as exc:
        await client.close()
        raise ConnectionError(f"could not reach NATS at {url} within {timeout_s}s") from exc
    except (CredentialsRefused, UntrustedServer):
        await client.close()
        raise
    return client


def _credential_options(credentials: BusCredentials | None) -> dict:
    return credentials.connect_options() if credentials is not None else {}


def server_urls(url: str) -> list[str]:
    """MEMHIVE_NATS__URL may list a cluster's servers, comma-separated; the client also
    learns the others from the cluster once connected."""
    return [u.strip() for u in url.split(",") if u.strip()]


def _options(url: str, name: str, timeout_s: float) -> dict:
    return {
        "servers": server_urls(url),
        "name": name,
        "connect_timeout": timeout_s,
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": RECONNECT_WAIT_S,
    }


def _lifecycle_callbacks(client: BusClient) -> dict:
    """Log losing the server, but not our own close (nats-py calls the same callback)."""

    async def disconnected() -> None:
        if not client.is_closed:
            log.warning("disconnected from NATS; reconnecting")

    return {
        "error_cb": _log_error,
        "disconnected_cb": disconnected,
        "reconnected_cb": _log_reconnected,
    }


async def _log_error(exc: Exception) -> None:
    log.warning("NATS connection error: %r", exc)


async def _log_reconnected() -> None:
    log.info("reconnected to NATS")


async def ensure_streams(js: JetStreamContext, replicas: int = 1) -> None:
    """Declare every stream in contracts.streams.STREAMS and the KV buckets; safe to repeat."""
    for spec in streams.STREAMS:
        await ensure_stream(js, spec, replicas)
    await ensure_bucket(js, streams.MEMORIES_BUCKET, streams.KV_HISTORY, replicas)
    await allow_direct_reads(js, streams.MEMORIES_BUCKET)
    await ensure_bucket(js, streams.TOKENS_BUCKET, TOKENS_HISTORY, replicas)
    await ensure_bucket(js, streams.BULLETINS_BUCKET, streams.BULLETINS_HISTORY, replicas)
    await ensure_bucket(js, streams.PRODUCTS_BUCKET, streams.KV_HISTORY, replicas)
    await ensure_bucket(js, streams.SPEND_BUCKET, 1, replicas, streams.SPEND_MAX_AGE_S)
    await ensure_bucket(js, streams.LANES_BUCKET, streams.KV_HISTORY, replicas)
    await ensure_bucket(
        js,
        streams.KV_BUCKET,
        streams.KV_HISTORY,
        replicas,
        max_value_bytes=streams.KV_MAX_VALUE_BYTES,
    )
    await ensure_bucket(
        js,
        streams.HOOK_SESSIONS_BUCKET,
        1,
        replicas,
        streams.HOOK_SESSIONS_MAX_AGE_S,
        max_bytes=streams.HOOK_SESSIONS_MAX_BYTES,
    )
    await evict_oldest_when_full(js, streams.HOOK_SESSIONS_BUCKET)


def _stream_config(spec: StreamSpec, replicas: int) -> StreamConfig:
    return StreamConfig(
        name=spec.name,
        subjects=list(spec.subjects),
        storage=StorageType.FILE,
        duplicate_window=streams.DUPLICATE_WINDOW_S,
        max_age=spec.max_age_s or None,
        num_replicas=replicas,
        allow_msg_schedules=spec.schedules or None,
    )


async def ensure_stream(js: JetStreamContext, spec: StreamSpec, replicas: int = 1) -> None:
    """Create the stream, or bring an existing one up to the spec.

    Subjects are only ever added: during a rolling upgrade an older process must not take
    subjects away from the stream under a newer one.
    """
    try:
        existing = (await js.stream_info(spec.name)).config
    except NotFoundError:
        await js.add_stream(_stream_config(spec, replicas))
        log.info("created stream %s", spec.name)
        return
    wanted = _merged(existing, spec, replicas)
    if wanted != existing:
        await js.update_stream(wanted)
        log.info("updated stream %s: subjects %s", spec.name, wanted.subjects)


def _merged(existing: StreamConfig, spec: StreamSpec, replicas: int) -> StreamConfig:
    subjects = list(existing.subjects or [])
    subjects += [s for s in spec.subjects if s not in subjects]
    return existing.evolve(
        subjects=subjects,
        duplicate_window=streams.DUPLICATE_WINDOW_S,
        max_age=spec.max_age_s or existing.max_age,
        num_replicas=replicas,
        allow_msg_schedules=spec.schedules or existing.allow_msg_schedules,
    )


async def ensure_bucket(
    js: JetStreamContext,
    bucket: str,
    history: int,
    replicas: int,
    ttl_s: float | None = None,
    *,
    max_value_bytes: int | None = None,
    max_bytes: int | None = None,
) -> None:
    """Create the bucket when missing (nats-py declares every bucket's stream with per-message
    TTLs allowed)."""
    try:
        await js.key_value(bucket)
    except BucketNotFoundError:
        config = KeyValueConfig(
            bucket=bucket,
            history=history,
            storage=StorageType.FILE,
            replicas=replicas,
            ttl=ttl_s,
            max_value_size=max_value_bytes,
            max_bytes=max_bytes,
        )
        await js.create_key_value(config)
        log.info("created KV bucket %s", bucket)


async def evict_oldest_when_full(js: JetStreamContext, bucket: str) -> None:
    """A bucket that is a cache: once at its max_bytes, a write removes the oldest values
    rather than being refused. nats-py declares every bucket with DiscardPolicy.NEW, right
    for a record (no write may silently remove another key's value), wrong for a cache,
    which would then refuse every new key until the old ones expire."""
    config = (await js.stream_info(f"KV_{bucket}")).config
    if config.discard != DiscardPolicy.OLD:
        await js.update_stream(config.evolve(discard=DiscardPolicy.OLD))
        log.info("KV bucket %s: the oldest values make room once it is full", bucket)


async def allow_direct_reads(js: JetStreamContext, bucket: str) -> None:
    """Direct gets on a bucket with one replica, where the single server that answers them
    is the one that took every write (`kv_latest_many`); never on a replicated one, where a
    follower could answer with an older value."""
    config = (await js.stream_info(f"KV_{bucket}")).config
    wanted = config.num_replicas == 1
    if bool(config.allow_direct) != wanted:
        await js.update_stream(config.evolve(allow_direct=wanted))
        log.info("KV bucket %s: direct reads %s", bucket, "on" if wanted else "off")
