"""memhive_client against the real stack: the async client in process, the sync client over
a real socket, and its request models checked against the gateway's OpenAPI document."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from memhive_client import (
    AsyncMemhiveClient,
    Conflict,
    Forbidden,
    InvalidRequest,
    MemhiveClient,
    NotFound,
)
from memhive_client import models as client_models

from tests.integration.stack.conftest import Stack


async def client_for(stack: Stack, token: str) -> AsyncMemhiveClient:
    return AsyncMemhiveClient("http://memhive", token, transport=httpx.ASGITransport(stack.app))


async def test_the_async_client_covers_the_api(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with (
        await client_for(stack, await stack.token(workspace)) as member,
        await client_for(stack, await stack.token(workspace, member=False)) as guest,
    ):
        old = await member.save(
            "fact", "The build server runs Jenkins", wait="indexed", tags=["ci"]
        )
        assert old.status == "indexed" and old.memory.tags == ["ci"]
        with pytest.raises(Conflict) as near:
            await member.save("fact", "The build server runs Jenkins 2", wait="indexed")
        assert near.value.similar[0]["id"] == old.id
        new = await member.save(
            "fact",
            "The build server moved to GitHub Actions",
            wait="indexed",
            supersedes=[old.id],
            visibility="public",
        )
        hits = await member.recall("which build server do we use?")
        assert hits[0].id == new.id and old.id in hits[0].replaces
        assert [e.kind for e in await member.edges(new.id)] == ["updates"]
        first = await member.link(new.id, old.id, "related_to", rationale="same server")
        again = await member.link(new.id, old.id, "related_to", rationale="same server")
        assert (first.status, again.status) == ("created", "unchanged")
        assert first.edge.rationale == "same server"
        assert [r.change for r in await member.revisions(new.id)] == ["saved"]
        assert (await member.get(new.id)).body.endswith("GitHub Actions")
        bulletin = await member.bulletin("global")  # refreshed in the background: any state
        assert bulletin.scope == "global" and bulletin.text.startswith("# Memory bulletin")
        pack = await member.context(400, query="build server")
        assert pack.tokens_used <= 400 and "build server" in pack.text
        assert [m.id async for m in member.iter_memories(page_size=1)] == [new.id, old.id]
        assert await member.dead_letters() == []

        assert [m.id for m in await guest.recall("build server")] == [new.id]
        with pytest.raises(Forbidden):
            await guest.forget(new.id)
        with pytest.raises(InvalidRequest) as bad:
            await member.save("rumour", "", wait="indexed")
        assert {p.field for p in bad.value.problems} >= {"kind", "body"}

        assert (await member.forget(old.id, wait="indexed")).status == "forgotten"
        with pytest.raises(NotFound) as gone:
            await member.get(old.id)
        assert old.id in gone.value.detail


async def test_the_sync_client_over_a_real_socket(stack: Stack, gateway_url: str) -> None:
    token = await stack.token(f"ws-{uuid.uuid4().hex[:12]}")

    def use_it() -> tuple[str, list[str], list[str]]:
        with MemhiveClient(gateway_url, token) as memhive:
            saved = memhive.save("preference", "Dana prefers tabs over spaces", wait="indexed")
            found = [hit.id for hit in memhive.recall("does Dana like tabs?")]
            listed = [m.id for m in memhive.iter_memories(kind=["preference"])]
            return saved.id, found, listed

    saved, found, listed = await asyncio.to_thread(use_it)
    assert found == [saved] and listed == [saved]


async def test_the_client_keeps_key_value_state(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with (
        await client_for(stack, await stack.token(workspace)) as member,
        await client_for(stack, await stack.token(workspace, member=False)) as guest,
    ):
        first = await member.set_state("product:ios", "plan", {"step": 1}, create_only=True)
        second = await member.set_state("product:ios", "plan", {"step": 2}, revision=first.revision)
        with pytest.raises(Conflict) as stale:
            await member.set_state("product:ios", "plan", {"step": 3}, revision=first.revision)
        assert stale.value.current_revision == second.revision
        await member.set_state("product:ios", "lease", None, ttl_s=60)
        got = await member.get_state("product:ios", "plan")
        keys = [e.key async for e in member.iter_state("product:ios", page_size=1)]
        with pytest.raises(Forbidden):
            await guest.get_state("product:ios", "plan")
        deleted = await member.delete_state("product:ios", "plan", revision=second.revision)
        with pytest.raises(NotFound):
            await member.get_state("product:ios", "plan")
        with pytest.raises(InvalidRequest) as bad:
            await member.set_state("product:ios", "no/slash", 1)

    assert got.value == {"step": 2} and got.revision == second.revision
    assert keys == ["plan", "lease"] and deleted.status == "deleted"
    assert "key" in [p.field for p in bad.value.problems]


@pytest.mark.parametrize(
    ("model", "schema"),
    [
        (client_models.SaveRequest, "SaveRequest"),
        (client_models.RecallRequest, "RecallRequest"),
        (client_models.EdgeRequest, "EdgeRequest"),
        (client_models.ContextRequest, "ContextRequest"),
        (client_models.KvPutRequest, "KvPutRequest"),
    ],
)
async def test_request_models_agree_with_the_openapi_document(
    stack: Stack, model: type, schema: str
) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(stack.app), base_url="http://memhive"
    ) as http:
        spec = (await http.get("/openapi.json")).json()["components"]["schemas"][schema]
    assert set(model.model_fields) == set(spec["properties"])
    required = {n for n, f in model.model_fields.items() if f.is_required()}
    assert required == set(spec.get("required", []))
