"""A person's OIDC JWT as the bearer of the API and of MCP (issue 11: "for the dashboard and
the API"): signed here with a local key pair, verified by the gateway against the stub
provider's JWKS on loopback. The JWT's workspace, role and home (a scope-tree path) are the
principal's, exactly as a token's would be."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from tests.integration.stack.conftest import Stack, served_on_loopback
from tests.integration.stack.identity_provider import Person, StubProvider, stub_provider
from tests.integration.stack.test_dashboard_oidc import gateway_with_oidc
from tests.integration.stack.test_mcp_tools import session, text

pytestmark = pytest.mark.timeout(120)

TEAM = "product:ios/team:mobile"


@pytest.fixture(scope="module")
def idp() -> Iterator[StubProvider]:
    with stub_provider() as provider:
        yield provider


@pytest.fixture(scope="module")
async def oidc_gateway(stack: Stack, idp: StubProvider) -> AsyncIterator[tuple[object, str]]:
    async with gateway_with_oidc(stack, idp.issuer) as app, served_on_loopback(app) as url:
        yield app, url


def jwt_for(idp: StubProvider, workspace: str, role: str, **claims) -> str:
    idp.tweak = claims
    try:
        return idp.id_token(Person(f"sub-{role}", workspace, role), nonce="unused")
    finally:
        idp.tweak = {}


def client(app: object, credential: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://memhive",
        headers={"Authorization": f"Bearer {credential}"},
    )


async def test_a_jwt_is_the_principal_of_the_rest_api(oidc_gateway, idp: StubProvider) -> None:
    app, _ = oidc_gateway
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    member = jwt_for(idp, workspace, "member", memhive_home=TEAM)
    async with client(app, member) as person:
        saved = await person.post(
            "/v1/memories?wait=indexed",
            json={"kind": "fact", "body": "The mobile team ships on Thursdays", "force": True},
        )
        assert saved.status_code == 201, saved.text
        memory = saved.json()["memory"]
        assert memory["scope_path"] == TEAM  # a save without a node lands at the JWT's home
        listed = await person.get("/v1/memories")
        assert [m["id"] for m in listed.json()["items"]] == [memory["id"]]
        sibling = await person.get("/v1/memories", params={"scope_path": "product:ios/team:web"})
        assert sibling.status_code == 403, sibling.text  # the home bounds what it reads
        assert (await person.get("/v1/admin/audit")).status_code == 403  # a member's role

    admin = jwt_for(idp, workspace, "admin")
    async with client(app, admin) as boss:
        entries = (await boss.get("/v1/admin/audit", params={"action": "save"})).json()["items"]
    assert [(e["user"], e["credential"], e["target"]) for e in entries] == [
        ("sub-member", "oidc:sub-member", memory["id"])
    ]


async def test_the_api_refuses_a_bad_jwt_with_401(oidc_gateway, idp: StubProvider) -> None:
    app, _ = oidc_gateway
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    for bad in (
        jwt_for(idp, workspace, "member", aud="another-client"),
        jwt_for(idp, workspace, "member", memhive_home="nonsense"),
        jwt_for(idp, workspace, "member")[:-4] + "AAAA",  # the signature broken
    ):
        async with client(app, bad) as person:
            answer = await person.get("/v1/memories")
        assert answer.status_code == 401, answer.text
        assert "sign-in token rejected" in answer.json()["detail"]


async def test_a_jwt_is_the_principal_of_mcp(oidc_gateway, idp: StubProvider) -> None:
    _, url = oidc_gateway
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    member = jwt_for(idp, workspace, "member", memhive_home=TEAM)
    viewer = jwt_for(idp, workspace, "viewer")
    async with session(url, member) as agent:
        saved = await agent.call_tool(
            "save_memory",
            {"kind": "fact", "body": "Crash reports go to the mobile channel", "force": True},
        )
        assert not saved.is_error, text(saved)
        memory = saved.structured_content["memory"]
        listed = await agent.call_tool("list_memories", {"scope_path": TEAM})
    assert memory["scope_path"] == TEAM
    assert [m["id"] for m in listed.structured_content["items"]] == [memory["id"]]
    async with session(url, viewer) as guest:
        refused = await guest.call_tool("save_memory", {"kind": "fact", "body": "not allowed"})
        private = await guest.call_tool("get_memory", {"id": memory["id"]})
    assert refused.is_error and "viewer may not save" in text(refused)
    assert private.is_error  # private, at a node the root-homed viewer reads: hidden anyway


async def test_mcp_refuses_a_bad_jwt_before_any_session(oidc_gateway, idp: StubProvider) -> None:
    _, url = oidc_gateway
    expired = jwt_for(idp, f"ws-{uuid.uuid4().hex[:12]}", "member", exp=0)
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {expired}"}) as http:
        answer = await http.post(
            f"{url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert answer.status_code == 401, answer.text
    assert "expired" in answer.json()["detail"]
