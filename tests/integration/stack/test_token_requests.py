"""The token responder (ingest) trusts no sender: requests on memhive.admin.tokens.<op>,
sent here as the gateway's own bus user (what a compromised gateway could send), change a
token only when their credential is a live admin's, and only in that admin's workspace.
Real stack: nats-server with memhive's users, ingest answering."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import nats.errors
import pytest
from memhive.v1 import token_admin_pb2 as pb
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.token_requests import BusTokenCommands
from memhive_contracts import subjects
from memhive_contracts.bus_permissions import QUERY
from memhive_contracts.codec import decode
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound, Unauthenticated
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import TokenDraft
from memhive_ports import TokenRequest
from nats.aio.client import Client

from tests.integration.conftest import bus_user
from tests.integration.stack.conftest import Stack

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def gateway_bus(nats_url: str, bus_auth: EmbeddedBusAuth) -> AsyncIterator[Client]:
    nc = await connect(nats_url, name="forger", timeout_s=5, credentials=bus_user(bus_auth, QUERY))
    yield nc
    await nc.close()


@pytest.fixture
def ws() -> str:
    return f"ws-{uuid.uuid4().hex[:12]}"


async def _workspace_tokens(stack: Stack, workspace: str) -> list[str]:
    return [r.user_id for r in await stack.infra.tokens.list(workspace)]


async def _audit(client: httpx.AsyncClient, action: str) -> list[tuple[str, str]]:
    answer = await client.get("/v1/admin/audit", params={"action": action})
    assert answer.status_code == 200, answer.text
    return [(e["user"], e["outcome"]) for e in answer.json()["items"]]


@pytest.mark.parametrize(
    "credential",
    [
        "",
        "mh_0123456789abcdef_forged",
        "not-a-token",
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJjZW8ifQ.",  # an unsigned JWT, OIDC off
    ],
)
async def test_a_request_without_a_valid_credential_changes_nothing(
    stack: Stack, gateway_bus: Client, ws: str, credential: str
) -> None:
    tokens = BusTokenCommands(gateway_bus)
    victim, _ = await stack.infra.tokens.create(TokenDraft(ws, "eve"), "root", datetime.now(UTC))

    with pytest.raises(Unauthenticated):
        await tokens.create(credential, TokenRequest(user_id="ceo", role="admin"))
    with pytest.raises(Unauthenticated):
        await tokens.revoke(credential, victim.id)
    with pytest.raises(Unauthenticated):
        await tokens.rotate(credential, victim.id)

    assert await _workspace_tokens(stack, ws) == ["eve"]
    assert await stack.infra.tokens.get(victim.id) == victim


async def test_a_non_admin_credential_is_refused_and_the_refusal_audited(
    stack: Stack, gateway_bus: Client, ws: str
) -> None:
    tokens = BusTokenCommands(gateway_bus)
    victim, _ = await stack.infra.tokens.create(TokenDraft(ws, "eve"), "root", datetime.now(UTC))
    for role in (Role.MEMBER, Role.AGENT, Role.VIEWER):
        credential = await stack.infra.tokens.issue(Principal(ws, f"not-admin-{role}", role))
        with pytest.raises(NotAllowed, match="only workspace admins"):
            await tokens.create(credential, TokenRequest(user_id="ceo", role="admin"))
        with pytest.raises(NotAllowed):
            await tokens.revoke(credential, victim.id)

    assert await stack.infra.tokens.get(victim.id) == victim
    assert "ceo" not in await _workspace_tokens(stack, ws)
    admin = await stack.infra.tokens.issue(Principal(ws, "root", Role.ADMIN))
    async with stack.client(admin) as client:
        refused = await _audit(client, "token_create")
    assert ("not-admin-member", "denied") in refused and ("not-admin-viewer", "denied") in refused


async def test_an_admin_acts_only_in_its_own_workspace(stack: Stack, gateway_bus: Client) -> None:
    tokens = BusTokenCommands(gateway_bus)
    mine, theirs = f"ws-{uuid.uuid4().hex[:12]}", f"ws-{uuid.uuid4().hex[:12]}"
    admin = await stack.infra.tokens.issue(Principal(mine, "root", Role.ADMIN))
    other, _ = await stack.infra.tokens.create(TokenDraft(theirs, "eve"), "x", datetime.now(UTC))

    with pytest.raises(NotFound):
        await tokens.revoke(admin, other.id)
    with pytest.raises(NotFound):
        await tokens.rotate(admin, other.id)
    assert await stack.infra.tokens.get(other.id) == other

    record, secret = await tokens.create(admin, TokenRequest(user_id="bot", role="agent"))
    assert (record.workspace_id, record.user_id, record.created_by) == (mine, "bot", "root")
    assert (await stack.infra.tokens.lookup(secret)).id == record.id


async def test_invalid_fields_come_back_named(stack: Stack, gateway_bus: Client, ws: str) -> None:
    tokens = BusTokenCommands(gateway_bus)
    admin = await stack.infra.tokens.issue(Principal(ws, "root", Role.ADMIN))
    bad = TokenRequest(user_id="x", role="owner", home="nowhere", expires_at="2030-01-01T00:00")
    with pytest.raises(InvalidInput, match="role"):
        await tokens.create(admin, bad)
    with pytest.raises(InvalidInput) as refused:
        await tokens.create(admin, TokenRequest(user_id="x", home="nowhere", expires_in="1d"))
    assert [p.field for p in refused.value.problems] == ["home"]
    with pytest.raises(InvalidInput, match="time zone"):
        await tokens.create(admin, TokenRequest(user_id="x", expires_at="2030-01-01T00:00"))


async def test_a_revoked_admin_token_is_refused_at_once(
    stack: Stack, gateway_bus: Client, ws: str
) -> None:
    """The responder does not cache credentials: no window after a revocation."""
    tokens = BusTokenCommands(gateway_bus)
    first = await stack.infra.tokens.issue(Principal(ws, "root", Role.ADMIN))
    record, second = await tokens.create(first, TokenRequest(user_id="root2", role="admin"))
    await tokens.create(first, TokenRequest(user_id="warm-any-cache"))
    await tokens.revoke(second, (await stack.infra.tokens.lookup(first)).id)

    with pytest.raises(Unauthenticated):
        await tokens.create(first, TokenRequest(user_id="too-late"))
    assert "too-late" not in await _workspace_tokens(stack, ws)
    assert record.role is Role.ADMIN


async def test_malformed_requests_are_answered_not_dropped(gateway_bus: Client) -> None:
    for subject, payload in [
        (subjects.CREATE_TOKEN, b"\xff\xff\xff"),
        (f"{subjects.TOKEN_REQUESTS}.grant", pb.RevokeToken(token_id="x").SerializeToString()),
    ]:
        reply = await gateway_bus.request(subject, payload, timeout=5)
        answer = decode(reply.data, pb.TokenAnswer)
        assert answer.error == "malformed" and not answer.HasField("token")


class Unanswered:
    """A bus on which no token responder answers (ingest down): nats-py's two failures."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def request(self, *_, **__):
        raise self.error


@pytest.mark.parametrize("error", [nats.errors.TimeoutError(), nats.errors.NoRespondersError()])
async def test_no_token_service_is_a_clear_503(
    stack: Stack, ws: str, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    gateway = stack.app.state.gateway
    monkeypatch.setattr(gateway.tokens, "commands", BusTokenCommands(Unanswered(error), 0.5))
    admin = await stack.infra.tokens.issue(Principal(ws, "root", Role.ADMIN))
    async with stack.client(admin) as client:
        created = await client.post("/v1/admin/tokens", json={"user": "bot"})
        revoked = await client.delete("/v1/admin/tokens/0123456789abcdef")
        listed = await client.get("/v1/admin/tokens")  # a read: still served
    for answer in (created, revoked):
        assert answer.status_code == 503, answer.text
        assert "ingest" in answer.json()["detail"]
    assert listed.status_code == 200
