"""The bus refuses what a user is not for (issue 11): an anonymous client cannot connect, a
hook of workspace A cannot forge, read or sniff anything, and each service user can do its
job and nothing that belongs to another service. Real nats-server with memhive's config."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import nats.errors
import pytest
from memhive.v1 import upstream_pb2
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth, new_user_nkey
from memhive_adapters.nats.kv_token_directory import token_digest
from memhive_contracts import bus_permissions as perms
from memhive_contracts import streams, subjects
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, NotFoundError

from tests.integration.conftest import bus_user

pytestmark = pytest.mark.timeout(60)


class BusClient:
    """A plain nats-py connection that records the permission errors the server sends."""

    def __init__(self, nc: Client, errors: list[str]) -> None:
        self.nc, self.errors = nc, errors

    @classmethod
    async def open(cls, url: str, credentials: BusCredentials) -> BusClient:
        errors: list[str] = []

        async def on_error(exc: Exception) -> None:
            errors.append(str(exc))

        nc = Client()
        try:
            await nc.connect(
                servers=url,
                allow_reconnect=False,
                connect_timeout=5,
                error_cb=on_error,
                **credentials.connect_options(),
            )
        except BaseException:
            await nc.close()  # a refused connection leaves its socket open otherwise
            raise
        return cls(nc, errors)

    async def publish_refused(self, subject: str, payload: bytes = b"forged") -> bool:
        seen = len(self.errors)
        await self.nc.publish(subject, payload, headers={streams.MSG_ID_HEADER: uuid.uuid4().hex})
        await self.nc.flush()
        return await self._refusal(f'publish to "{subject}"', seen)

    async def subscribe_refused(self, subject: str) -> bool:
        seen = len(self.errors)
        await self.nc.subscribe(subject)
        await self.nc.flush()
        return await self._refusal(f'subscription to "{subject}"', seen)

    async def _refusal(self, what: str, seen: int, within_s: float = 3.0) -> bool:
        """The server's -ERR may come after the PONG of a flush: wait for it, bounded."""
        # nats-py lowercases the -ERR text: "permissions violation for publish to ..."
        expected = f"permissions violation for {what.lower()}"
        for _ in range(int(within_s / 0.01)):
            if any(expected in e.lower() for e in self.errors[seen:]):
                return True
            await asyncio.sleep(0.01)
        return False

    async def stored(self, subject: str, payload: bytes = b"x") -> int:
        """A JetStream publish that the stream acknowledged; returns its sequence."""
        return (await self.nc.jetstream().publish(subject, payload, timeout=5)).seq


@pytest.fixture
async def connected(nats_url: str) -> AsyncIterator:
    clients: list[BusClient] = []

    async def open_as(credentials: BusCredentials) -> BusClient:
        clients.append(await BusClient.open(nats_url, credentials))
        return clients[-1]

    yield open_as
    for client in clients:
        await client.nc.close()


@pytest.fixture
def ws_a() -> str:
    return f"wsa-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def ws_b() -> str:
    return f"wsb-{uuid.uuid4().hex[:10]}"


async def _issue_hook(auth: EmbeddedBusAuth, workspace_id: str, connected):
    """Issued while the server runs, as `memhive hook-credentials` does: config + SIGHUP."""
    pair = auth.add_hook(workspace_id)
    assert auth.reload_server()
    credentials = BusCredentials(perms.hook_user(workspace_id), nkey_seed=pair.seed)
    for _ in range(100):  # the server reloads in the background
        try:
            return await connected(credentials), pair, credentials
        except (nats.errors.Error, OSError):
            await asyncio.sleep(0.05)
    raise AssertionError("the hook user was never accepted")


@pytest.fixture
async def hook_a(bus_auth: EmbeddedBusAuth, ws_a: str, connected) -> BusClient:
    hook, _, _ = await _issue_hook(bus_auth, ws_a, connected)
    return hook


def _note(workspace_id: str) -> bytes:
    event = upstream_pb2.NoteAdded(
        event_id=uuid.uuid4().hex, workspace_id=workspace_id, note_id="n1", body="forged note"
    )
    event.occurred_at.GetCurrentTime()
    return event.SerializeToString()


async def _nothing_stored(js: JetStreamContext, stream: str, subject: str) -> bool:
    try:
        await js.get_last_msg(stream, subject)
    except NotFoundError:
        return True
    return False


# Anonymous and unknown clients


async def test_an_anonymous_client_cannot_connect(nats_url: str) -> None:
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await BusClient.open(nats_url, BusCredentials(perms.HOOK))


async def test_a_key_the_server_does_not_know_cannot_connect(nats_url: str) -> None:
    stranger = BusCredentials(perms.ADMIN, nkey_seed=new_user_nkey().seed)
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await BusClient.open(nats_url, stranger)


# A hook of workspace A


async def test_a_hook_publishes_its_own_workspaces_upstream_events(
    hook_a: BusClient, ws_a: str, js: JetStreamContext
) -> None:
    subject = subjects.for_workspace(subjects.NOTE_ADDED, ws_a)
    seq = await hook_a.stored(subject, _note(ws_a))
    assert (await js.get_last_msg(streams.LOG_STREAM, subject)).seq == seq


async def test_a_hook_cannot_forge_another_workspaces_events(
    hook_a: BusClient, ws_b: str, js: JetStreamContext
) -> None:
    for root in (subjects.NOTE_ADDED, subjects.ISSUE_CREATED, subjects.KNOWLEDGE_SNAPSHOT):
        subject = subjects.for_workspace(root, ws_b)
        assert await hook_a.publish_refused(subject, _note(ws_b))
        assert await _nothing_stored(js, streams.LOG_STREAM, subject)


async def test_a_hook_cannot_send_commands_or_events(
    hook_a: BusClient, ws_a: str, js: JetStreamContext
) -> None:
    for root in (
        subjects.SAVE_MEMORY,
        subjects.FORGET_MEMORY,
        subjects.LINK_MEMORIES,
        subjects.MEMORY_SAVED,
        subjects.MEMORY_FORGOTTEN,
    ):
        subject = subjects.for_workspace(root, ws_a)
        assert await hook_a.publish_refused(subject)
        assert await _nothing_stored(js, streams.LOG_STREAM, subject)
    assert await hook_a.publish_refused(subjects.for_workspace(subjects.MEMORIES_RECALLED, ws_a))
    assert await hook_a.publish_refused(subjects.dead_letter("ingest"))


async def test_a_hook_cannot_write_a_token(hook_a: BusClient, ws_a: str, js) -> None:
    digest = token_digest(f"forged-{uuid.uuid4().hex}")
    forged = json.dumps({"workspace_id": ws_a, "user_id": "ceo", "role": "admin"}).encode()
    assert await hook_a.publish_refused(f"$KV.{streams.TOKENS_BUCKET}.{digest}", forged)
    with pytest.raises(KeyNotFoundError):
        await (await js.key_value(streams.TOKENS_BUCKET)).get(digest)


async def test_a_hook_cannot_read_the_record(hook_a: BusClient, ws_a: str, js) -> None:
    records = await js.key_value(streams.MEMORIES_BUCKET)
    key = streams.memory_key(ws_a, str(uuid.uuid4()))
    await records.put(key, b"a private body")
    stream = f"KV_{streams.MEMORIES_BUCKET}"
    for request in (
        f"$JS.API.DIRECT.GET.{stream}.$KV.{streams.MEMORIES_BUCKET}.{key}",
        f"$JS.API.STREAM.MSG.GET.{stream}",
        f"$JS.API.CONSUMER.CREATE.{stream}",
        f"$JS.API.STREAM.INFO.{stream}",
    ):
        assert await hook_a.publish_refused(request, b"{}")
    assert await hook_a.subscribe_refused(f"$KV.{streams.MEMORIES_BUCKET}.>")
    with pytest.raises(nats.errors.TimeoutError):  # nobody answers what it may not ask
        await hook_a.nc.request(f"$JS.API.STREAM.MSG.GET.{stream}", b'{"seq": 1}', timeout=0.5)


async def test_only_the_gateway_reads_and_writes_key_value_memory(
    hook_a: BusClient, ws_a: str, js: JetStreamContext, connected, bus_auth: EmbeddedBusAuth
) -> None:
    """Key/value memory is the gateway's alone: no hook and no other service may read,
    list or write it (the admin declares the bucket)."""
    bucket, stream = streams.KV_BUCKET, f"KV_{streams.KV_BUCKET}"
    key = streams.kv_key(ws_a, "Z2xvYmFs", "cGxhbg")
    await (await js.key_value(bucket)).put(key, b"private state")
    others = [hook_a] + [
        await connected(bus_user(bus_auth, user))
        for user in (perms.INGEST, perms.EMBED, perms.LINK_CLASSIFIER, perms.BULLETIN)
    ]
    for other in others:
        for request in (
            f"$JS.API.DIRECT.GET.{stream}.$KV.{bucket}.{key}",
            f"$JS.API.STREAM.MSG.GET.{stream}",
            f"$JS.API.CONSUMER.CREATE.{stream}",
        ):
            assert await other.publish_refused(request, b"{}")
        assert await other.publish_refused(f"$KV.{bucket}.{key}", b"overwritten")
    query = await connected(bus_user(bus_auth, perms.QUERY))
    readable = await query.nc.jetstream().key_value(bucket)
    assert (await readable.get(key)).value == b"private state"
    assert await query.stored(f"$KV.{bucket}.{key}", b"the gateway writes")
    assert (await (await js.key_value(bucket)).get(key)).value == b"the gateway writes"


async def test_a_hook_cannot_sniff_commands_events_or_replies(
    hook_a: BusClient, ws_a: str, js: JetStreamContext
) -> None:
    for subject in (
        subjects.any_workspace(subjects.SAVE_MEMORY),
        subjects.ALL_MEMORY_EVENTS,
        "memhive.>",
        ">",
        "_INBOX.>",
        f"{perms.inbox_prefix(perms.QUERY)}.>",
    ):
        assert await hook_a.subscribe_refused(subject)
    assert await hook_a.publish_refused(f"$JS.API.CONSUMER.CREATE.{streams.LOG_STREAM}", b"{}")


async def test_a_hook_cannot_ask_for_a_reindex(
    hook_a: BusClient, connected, bus_auth: EmbeddedBusAuth
) -> None:
    embed = await connected(bus_user(bus_auth, perms.EMBED))
    asked: list[bytes] = []

    async def answer(msg) -> None:
        asked.append(msg.data)
        await msg.respond(b"accepted")

    await embed.nc.subscribe(subjects.REINDEX_MEMORIES, cb=answer)
    await embed.nc.flush()
    assert await hook_a.publish_refused(subjects.REINDEX_MEMORIES)
    with pytest.raises(nats.errors.TimeoutError):
        await hook_a.nc.request(subjects.REINDEX_MEMORIES, b"", timeout=0.5)
    assert asked == []
    admin = await connected(bus_user(bus_auth, perms.ADMIN))
    # Answered by whichever embed is quickest (a running stack's responder may be too).
    await admin.nc.request(subjects.REINDEX_MEMORIES, b"", timeout=5)
    for _ in range(100):
        if asked:
            break
        await asyncio.sleep(0.05)
    assert asked == [b""]


# Service users: each does its job, and only its job


async def test_the_gateway_reads_tokens_but_cannot_write_them_or_the_record(
    connected, bus_auth: EmbeddedBusAuth, js: JetStreamContext
) -> None:
    tokens = await js.key_value(streams.TOKENS_BUCKET)
    digest = token_digest(uuid.uuid4().hex)
    await tokens.put(digest, b"{}")
    forged_key = token_digest(f"forged-{uuid.uuid4().hex}")
    try:
        query = await connected(bus_user(bus_auth, perms.QUERY))
        readable = await query.nc.jetstream().key_value(streams.TOKENS_BUCKET)
        assert (await readable.get(digest)).value == b"{}"
        forged = json.dumps({"workspace_id": "ws", "user_id": "ceo", "role": "admin"}).encode()
        assert await query.publish_refused(f"$KV.{streams.TOKENS_BUCKET}.{forged_key}", forged)
        assert await query.publish_refused(f"$KV.{streams.TOKENS_BUCKET}.{digest}", b"")
        assert await query.publish_refused(f"$KV.{streams.MEMORIES_BUCKET}.ws.id")
        with pytest.raises(KeyNotFoundError):
            await tokens.get(forged_key)
        assert (await tokens.get(digest)).value == b"{}"
    finally:
        await tokens.purge(digest)


async def test_only_ingest_answers_token_requests(connected, bus_auth: EmbeddedBusAuth) -> None:
    """The gateway may ask for token changes; only ingest may listen for them (and answer)."""
    query = await connected(bus_user(bus_auth, perms.QUERY))
    assert not await query.publish_refused(subjects.CREATE_TOKEN, b"")
    assert await query.subscribe_refused(f"{subjects.TOKEN_REQUESTS}.*")
    for user in (perms.EMBED, perms.LINK_CLASSIFIER, perms.BULLETIN):
        service = await connected(bus_user(bus_auth, user))
        assert await service.subscribe_refused(f"{subjects.TOKEN_REQUESTS}.*")
        assert await service.publish_refused(subjects.CREATE_TOKEN, b"")
    ingest = await connected(bus_user(bus_auth, perms.INGEST))
    assert not await ingest.subscribe_refused(f"{subjects.TOKEN_REQUESTS}.*")


@pytest.mark.parametrize(
    ("user", "allowed", "refused"),
    [
        (
            perms.QUERY,
            [f"{subjects.SAVE_MEMORY}.ws", f"{subjects.FORGET_MEMORY}.ws"],
            [
                f"{subjects.MEMORY_SAVED}.ws",
                f"{subjects.NOTE_ADDED}.ws",
                subjects.dead_letter("x"),
                f"$KV.{streams.TOKENS_BUCKET}.k",
            ],
        ),
        (
            perms.INGEST,
            [f"{subjects.MEMORY_SAVED}.ws", subjects.dead_letter("ws")],
            [f"{subjects.SAVE_MEMORY}.ws", f"$KV.{streams.BULLETINS_BUCKET}.k"],
        ),
        (
            perms.EMBED,
            [f"{subjects.MEMORY_INDEXED}.ws"],
            [
                f"{subjects.MEMORY_SAVED}.ws",
                f"$KV.{streams.TOKENS_BUCKET}.k",
                f"$KV.{streams.MEMORIES_BUCKET}.ws.id",
            ],
        ),
        (
            perms.LINK_CLASSIFIER,
            [f"{subjects.LINK_MEMORIES}.ws"],
            [f"{subjects.SAVE_MEMORY}.ws", f"$KV.{streams.MEMORIES_BUCKET}.ws.id"],
        ),
        (
            perms.BULLETIN,
            [f"{subjects.BULLETIN_REFRESHED}.ws"],
            [f"{subjects.FORGET_MEMORY}.ws", f"$KV.{streams.MEMORIES_BUCKET}.ws.id"],
        ),
    ],
)
async def test_each_service_publishes_only_its_own_subjects(
    connected, bus_auth: EmbeddedBusAuth, user: str, allowed: list[str], refused: list[str]
) -> None:
    service = await connected(bus_user(bus_auth, user))
    ws = f"perm-{uuid.uuid4().hex[:10]}"
    for subject in allowed:
        assert await service.stored(subject.replace(".ws", f".{ws}"))
    for subject in refused:
        assert await service.publish_refused(subject.replace(".ws", f".{ws}"))


async def test_only_the_gateway_and_the_admin_listen_to_memory_events(
    connected, bus_auth: EmbeddedBusAuth
) -> None:
    query = await connected(bus_user(bus_auth, perms.QUERY))
    assert not await query.subscribe_refused(subjects.ALL_MEMORY_EVENTS)
    for user in (perms.INGEST, perms.LINK_CLASSIFIER, perms.BULLETIN):
        service = await connected(bus_user(bus_auth, user))
        assert await service.subscribe_refused(subjects.ALL_MEMORY_EVENTS)
        assert await service.subscribe_refused(f"{perms.inbox_prefix(perms.QUERY)}.>")


async def test_a_revoked_hook_is_cut_off_and_cannot_come_back(
    bus_auth: EmbeddedBusAuth, ws_a: str, connected, nats_url: str
) -> None:
    hook, pair, credentials = await _issue_hook(bus_auth, ws_a, connected)

    assert bus_auth.remove_hook(pair.public_key)
    assert bus_auth.reload_server()
    for _ in range(100):
        if hook.nc.is_closed:
            break
        await asyncio.sleep(0.05)
    assert hook.nc.is_closed
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await BusClient.open(nats_url, credentials)


@pytest.mark.parametrize("user", [perms.INGEST, perms.EMBED, perms.LINK_CLASSIFIER, perms.BULLETIN])
async def test_a_service_may_create_and_ack_for_its_own_durables_only(
    connected, bus_auth: EmbeddedBusAuth, user: str
) -> None:
    service = await connected(bus_user(bus_auth, user))
    own = perms.DURABLES[user][0]
    other = next(d for u, names in perms.DURABLES.items() if u != user for d in names)
    create = f"$JS.API.CONSUMER.CREATE.{streams.LOG_STREAM}"
    # An empty request changes nothing; JetStream answering it proves the subject allowed.
    assert (await service.nc.request(f"{create}.{own}", b"", timeout=5)).data
    assert await service.publish_refused(f"{create}.{other}", b"")
    assert await service.publish_refused(f"$JS.ACK.{streams.LOG_STREAM}.{other}.1.1.1.1.0")
