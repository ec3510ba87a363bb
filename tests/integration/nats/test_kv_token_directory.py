from __future__ import annotations

import json
import uuid

import pytest
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory, token_digest
from memhive_contracts import streams
from memhive_domain.principals import Principal, Role, member_or_viewer
from nats.js import JetStreamContext


@pytest.fixture
async def tokens(js: JetStreamContext) -> KvTokenDirectory:
    return await KvTokenDirectory.open(js)


def a_principal(is_member: bool = True) -> Principal:
    return Principal(
        workspace_id=f"ws-{uuid.uuid4().hex[:8]}", user_id="ada", role=member_or_viewer(is_member)
    )


async def test_an_issued_token_resolves_to_its_principal(tokens: KvTokenDirectory) -> None:
    principal = a_principal(is_member=False)

    token = await tokens.issue(principal)

    assert len(token) >= 40
    assert await tokens.resolve(token) == principal


async def test_a_given_token_is_registered_as_is(tokens: KvTokenDirectory) -> None:
    principal, chosen = a_principal(), f"tok-{uuid.uuid4()}"

    assert await tokens.issue(principal, chosen) == chosen
    assert await tokens.resolve(chosen) == principal


async def test_unknown_and_empty_tokens_resolve_to_none(tokens: KvTokenDirectory) -> None:
    assert await tokens.resolve(f"never-issued-{uuid.uuid4()}") is None
    assert await tokens.resolve("") is None


async def test_only_the_digest_is_stored(tokens: KvTokenDirectory, js: JetStreamContext) -> None:
    token = await tokens.issue(a_principal())
    kv = await js.key_value(streams.TOKENS_BUCKET)

    keys = await kv.keys()
    stored = await kv.get(token_digest(token))

    assert token_digest(token) in keys
    assert token not in keys
    assert token.encode() not in stored.value


async def test_a_token_keeps_its_role_home_and_who_it_acts_for(tokens: KvTokenDirectory) -> None:
    principal = Principal(
        f"ws-{uuid.uuid4().hex[:8]}", "bot-7", Role.AGENT, "product:ios", acting_for="ada"
    )

    token = await tokens.issue(principal)

    assert await tokens.resolve(token) == principal


async def test_a_token_stored_before_roles_reads_as_member_or_viewer(
    tokens: KvTokenDirectory, js: JetStreamContext
) -> None:
    kv = await js.key_value(streams.TOKENS_BUCKET)
    legacy = {"workspace_id": "ws-old", "user_id": "ada", "is_member": False}
    await kv.put(token_digest("legacy-token"), json.dumps(legacy).encode())

    assert await tokens.resolve("legacy-token") == Principal("ws-old", "ada", Role.VIEWER)
