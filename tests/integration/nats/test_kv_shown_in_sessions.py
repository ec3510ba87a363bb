"""What agents' sessions were shown, on the bus: every gateway replica (each its own
connection as the query bus user) reads what another wrote; a session keeps its latest ids;
one idle past the bucket's max age is forgotten; a bus that refuses costs a repeat, never
an error."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.connection import connect, ensure_bucket, evict_oldest_when_full
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.kv_shown_in_sessions import KvShownInSessions
from memhive_contracts.bus_permissions import QUERY
from memhive_contracts.streams import HOOK_SESSIONS_BUCKET
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy

from tests.integration.conftest import bus_user


def _session() -> tuple[str, str, str]:
    return (f"ws-{uuid.uuid4().hex[:8]}", "agent", f"session {uuid.uuid4()} / any: chars.*")


async def test_replicas_share_what_a_session_was_shown(
    js: JetStreamContext, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    query = bus_user(bus_auth, QUERY)
    one, two = [
        await connect(nats_url, name=f"gw-{i}", timeout_s=5, credentials=query) for i in (1, 2)
    ]
    try:
        a, b = KvShownInSessions(one.jetstream()), KvShownInSessions(two.jetstream())
        session = _session()
        assert await b.ids(session) == []
        await a.keep(session, ["m1", "m2"])
        assert await b.ids(session) == ["m1", "m2"]
        await b.keep(session, ["m1", "m2", "m2", "m3"])
        assert await a.ids(session) == ["m1", "m2", "m3"]
        workspace, user, sid = session
        for other in ((workspace, "another user", sid), (workspace, user, "another")):
            assert await a.ids(other) == []
        await a.keep(session, ["m9"])  # a new context
        assert await b.ids(session) == ["m9"]
    finally:
        await one.close()
        await two.close()


async def test_a_session_keeps_its_latest_ids(js: JetStreamContext) -> None:
    shown, session = KvShownInSessions(js, max_ids=3), _session()
    await shown.keep(session, ["1", "2", "3", "4"])
    assert await shown.ids(session) == ["2", "3", "4"]


@pytest.mark.timeout(60)
async def test_a_session_idle_past_the_buckets_max_age_is_forgotten(js: JetStreamContext) -> None:
    bucket = f"hook_sessions_{uuid.uuid4().hex[:8]}"
    await ensure_bucket(js, bucket, 1, 1, 1.0)  # a max age of one second
    shown, session = KvShownInSessions(js, bucket=bucket), _session()
    await shown.keep(session, ["m1"])
    assert await shown.ids(session) == ["m1"]
    # The server expires it within seconds; no event says when, so it is asked again.
    while await shown.ids(session):  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    await shown.keep(session, ["m2"])
    assert await shown.ids(session) == ["m2"]


async def test_a_bus_that_refuses_costs_a_repeat_not_an_error(js: JetStreamContext) -> None:
    bucket = f"hook_sessions_{uuid.uuid4().hex[:8]}"
    await ensure_bucket(js, bucket, 1, 1, max_bytes=512)
    shown, session = KvShownInSessions(js, bucket=bucket), _session()
    await shown.keep(session, ["m1"])
    await shown.keep(session, [uuid.uuid4().hex for _ in range(40)])  # past the bucket's bound
    assert await shown.ids(session) == ["m1"]


async def test_a_full_bucket_forgets_the_sessions_written_longest_ago(js: JetStreamContext) -> None:
    info = await js.stream_info(f"KV_{HOOK_SESSIONS_BUCKET}")  # as `declare-streams` leaves it
    assert info.config.discard == DiscardPolicy.OLD
    bucket = f"hook_sessions_{uuid.uuid4().hex[:8]}"
    await ensure_bucket(js, bucket, 1, 1, max_bytes=4096)  # as an earlier release declared it
    await evict_oldest_when_full(js, bucket)
    shown, sessions = KvShownInSessions(js, bucket=bucket), [_session() for _ in range(60)]
    for session in sessions:  # ~130 bytes each: the bucket is full about halfway through
        await shown.keep(session, [uuid.uuid4().hex])
    kept = [len(await shown.ids(s)) for s in sessions]
    # The oldest made room for the newest; none was refused.
    assert kept == sorted(kept) and kept[0] == 0 and kept[-10:] == [1] * 10, kept


async def test_a_closed_connection_reads_as_unknown_and_a_write_is_dropped(
    nats_url: str, bus_auth: EmbeddedBusAuth, caplog: pytest.LogCaptureFixture
) -> None:
    client = await connect(
        nats_url, name="gw-closed", timeout_s=5, credentials=bus_user(bus_auth, QUERY)
    )
    shown, session = KvShownInSessions(client.jetstream()), _session()
    await shown.keep(session, ["m1"])
    await client.close()
    assert await shown.ids(session) is None  # unknown, not "nothing"
    # The session id is the agent's: quoted in the log, so it cannot start a line of its own.
    forged = (session[0], session[1], "s\n2026-12-07 12:00:00,000 ERROR forged")
    await shown.keep(forged, ["m2"])
    warnings = [r.getMessage() for r in caplog.records if r.name.endswith("kv_shown_in_sessions")]
    assert len(warnings) == 2 and not any("\n" in w for w in warnings), warnings


async def test_nothing_is_kept_below_the_low_space_watermark(
    js: JetStreamContext, tmp_path: Path
) -> None:
    free = {"bytes": 0}
    space = FreeSpace(tmp_path, 1 << 20, measure=lambda _: free["bytes"])
    shown, session = KvShownInSessions(js, space=space), _session()
    await shown.keep(session, ["m1"])
    assert await shown.ids(session) == []  # read as ever, nothing written
    free["bytes"] = 1 << 30  # space freed: kept again, with no restart
    await shown.keep(session, ["m2"])
    assert await shown.ids(session) == ["m2"]


async def test_sessions_whose_parts_run_together_are_apart(js: JetStreamContext) -> None:
    shown, workspace = KvShownInSessions(js), f"ws-{uuid.uuid4().hex[:8]}"
    await shown.keep((workspace, "u\0x", "s"), ["m1"])
    assert await shown.ids((workspace, "u", "x\0s")) == []


async def test_a_bucket_not_declared_yet_costs_a_repeat_and_is_bound_once_it_exists(
    js: JetStreamContext, caplog: pytest.LogCaptureFixture
) -> None:
    """A distributed deployment upgraded without `memhive declare-streams`: the gateway
    serves, says once what to run, and uses the bucket once the admin has declared it."""
    bucket = f"hook_sessions_{uuid.uuid4().hex[:8]}"
    shown, session = KvShownInSessions(js, bucket=bucket), _session()
    assert await shown.ids(session) is None
    await shown.keep(session, ["m1"])
    assert await shown.ids(session) is None
    said = [r.message for r in caplog.records if "declare-streams" in r.message]
    assert len(said) == 1 and bucket in said[0]
    await ensure_bucket(js, bucket, 1, 1)
    await shown.keep(session, ["m2"])
    assert await shown.ids(session) == ["m2"]
