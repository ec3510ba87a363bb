from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory, token_digest
from memhive_contracts import streams
from memhive_domain.principals import Principal, Role, member_or_viewer
from memhive_domain.tokens import TokenDraft, parse_token
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
    token_id, secret = parse_token(token)

    stored = await kv.get(token_id)

    assert token not in await kv.keys()
    assert token.encode() not in stored.value and secret.encode() not in stored.value
    assert json.loads(stored.value)["digest"] == token_digest(token)


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


async def test_a_new_token_is_recognisable_and_never_starts_with_a_dash(
    tokens: KvTokenDirectory,
) -> None:
    for _ in range(20):
        token = await tokens.issue(a_principal())
        assert token.startswith("mh_") and parse_token(token) is not None


def a_draft(**fields) -> TokenDraft:
    return TokenDraft(**({"workspace_id": f"ws-{uuid.uuid4().hex[:8]}", "user_id": "bot"} | fields))


async def test_created_tokens_are_listed_by_workspace_without_secrets(
    tokens: KvTokenDirectory,
) -> None:
    now = datetime.now(UTC)
    draft = a_draft(role=Role.AGENT, name="ci hook", home="team:team-a", acting_for="ada")
    record, token = await tokens.create(draft, created_by="root", now=now)
    other, _ = await tokens.create(a_draft(), created_by="root", now=now)

    listed = await tokens.list(draft.workspace_id)

    assert listed == [record]
    assert (record.name, record.created_by, record.home) == ("ci hook", "root", "team:team-a")
    assert await tokens.get(record.id) == record
    assert other in await tokens.list()
    assert (await tokens.resolve(token)).credential == f"token:{record.id}"


async def test_a_revoked_token_resolves_to_none(tokens: KvTokenDirectory) -> None:
    record, token = await tokens.create(a_draft(), created_by="root", now=datetime.now(UTC))

    assert await tokens.revoke(record.id) == record

    assert await tokens.resolve(token) is None
    assert await tokens.revoke(record.id) is None
    assert await tokens.list(record.workspace_id) == []


async def test_an_expired_token_resolves_to_none_but_is_still_listed(
    tokens: KvTokenDirectory,
) -> None:
    past = datetime.now(UTC) - timedelta(hours=2)
    draft = a_draft(expires_at=past + timedelta(hours=1))
    record, token = await tokens.create(draft, created_by="root", now=past)

    assert await tokens.resolve(token) is None
    assert (await tokens.lookup(token)).expires_at == record.expires_at
    assert await tokens.list(record.workspace_id) == [record]


async def test_a_forged_secret_with_a_real_id_is_refused(tokens: KvTokenDirectory) -> None:
    record, token = await tokens.create(a_draft(), created_by="root", now=datetime.now(UTC))

    assert await tokens.resolve(f"mh_{record.id}_forged") is None
    assert await tokens.resolve(token) is not None


async def test_rotation_keeps_id_and_metadata_and_retires_the_old_secret(
    tokens: KvTokenDirectory,
) -> None:
    now = datetime.now(UTC)
    record, old = await tokens.create(a_draft(name="n"), created_by="root", now=now)

    rotated, new = await tokens.rotate(record.id, now, grace=timedelta(0))

    assert rotated.id == record.id and rotated.name == "n" and rotated.rotated_at == now
    assert new != old
    assert await tokens.resolve(old) is None
    assert (await tokens.resolve(new)).user_id == record.user_id


async def test_rotation_with_grace_keeps_the_old_secret_until_the_grace_ends(
    tokens: KvTokenDirectory,
) -> None:
    now = datetime.now(UTC)
    record, old = await tokens.create(a_draft(), created_by="root", now=now)

    await tokens.rotate(record.id, now, grace=timedelta(hours=1))

    assert (await tokens.lookup(old)).expires_at == now + timedelta(hours=1)
    assert await tokens.resolve(old) is not None


async def test_a_legacy_token_rotates_into_a_token_with_an_id(tokens: KvTokenDirectory) -> None:
    legacy = f"legacy-{uuid.uuid4()}"
    await tokens.issue(a_principal(), legacy)

    rotated, new = await tokens.rotate(token_digest(legacy), datetime.now(UTC), timedelta(0))

    assert parse_token(new)[0] == rotated.id
    assert await tokens.resolve(legacy) is None
    assert await tokens.resolve(new) is not None


async def test_changes_name_each_token_changed_after_the_watch_began(
    tokens: KvTokenDirectory,
) -> None:
    before, _ = await tokens.create(a_draft(), created_by="root", now=datetime.now(UTC))
    changes = await tokens.changes()
    try:
        record, _ = await tokens.create(a_draft(), created_by="root", now=datetime.now(UTC))
        await tokens.revoke(record.id)
        seen = [await asyncio.wait_for(anext(changes), 5) for _ in range(2)]
    finally:
        await changes.aclose()

    assert seen == [record.id, record.id]
    assert before.id not in seen


async def test_an_unreadable_record_authenticates_nothing_and_breaks_no_listing(
    tokens: KvTokenDirectory, js: JetStreamContext
) -> None:
    kept = await tokens.create(a_draft(), "root", datetime.now(UTC))
    bucket = await js.key_value(streams.TOKENS_BUCKET)
    junk = {token_digest("junk-1"): b"{}", token_digest("junk-2"): b"not json", "0" * 16: b"[]"}
    for key, value in junk.items():
        await bucket.put(key, value)
    try:
        assert await tokens.resolve("junk-1") is None and await tokens.resolve("junk-2") is None
        assert await tokens.get("0" * 16) is None
        assert kept[0].id in [r.id for r in await tokens.list(kept[0].workspace_id)]
    finally:
        for key in junk:
            await bucket.purge(key)
