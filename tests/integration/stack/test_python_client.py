"""memhive_client against the real stack: the async client over every route, both in process
(ASGI) and over a real socket with its default sender (aiohttp); the sync client over a real
socket; and every request model checked against the gateway's OpenAPI document."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from memhive_client import (
    AsyncMemhiveClient,
    Conflict,
    Forbidden,
    InvalidRequest,
    MemhiveClient,
    NotFound,
    Unauthorized,
)
from memhive_client import models as client_models
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack

ClientFor = Callable[[str], AsyncMemhiveClient]


@pytest.fixture(params=["asgi", "aiohttp"])
def client_for(request: pytest.FixtureRequest, stack: Stack, gateway_url: str) -> ClientFor:
    """The async client in process over ASGI, and as an agent runs it: over aiohttp (its
    default sender) and a real socket."""
    if request.param == "asgi":
        return lambda token: AsyncMemhiveClient(
            "http://memhive", token, transport=httpx.ASGITransport(stack.app)
        )
    return lambda token: AsyncMemhiveClient(gateway_url, token)


async def test_the_async_client_covers_the_api(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with (
        client_for(await stack.token(workspace)) as member,
        client_for(await stack.token(workspace, member=False)) as guest,
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


async def test_the_client_keeps_key_value_state(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with (
        client_for(await stack.token(workspace)) as member,
        client_for(await stack.token(workspace, member=False)) as guest,
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


async def test_a_dot_segment_is_the_callers_value_not_a_path_step(
    stack: Stack, client_for: ClientFor
) -> None:
    """HTTP clients remove '.' and '..' segments: `get('.')` read the list route, and a state
    at '<node>/..' was written to the parent node."""
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with client_for(await stack.token(workspace)) as member:
        for memory_id in (".", ".."):
            with pytest.raises(NotFound):
                await member.get(memory_id)
            with pytest.raises(NotFound):
                await member.forget(memory_id)
        with pytest.raises(InvalidRequest) as upward:
            await member.set_state("product:ios/..", "plan", 1)
        with pytest.raises(InvalidRequest) as dots:
            await member.get_state("product:ios", "..")
        with pytest.raises(NotFound):
            await member.get_state("global", "plan")
        await member.set_state("product:ios.v2", "ui.theme", "dark")  # dots inside stay
        dotted = await member.get_state("product:ios.v2", "ui.theme")

    assert dotted.value == "dark"
    assert "scope" in [p.field for p in upward.value.problems]
    assert "key" in [p.field for p in dots.value.problems]


async def test_updates_pins_flags_and_confirmations(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with client_for(await stack.token(workspace)) as member:
        saved = await member.save(
            "fact", "The nightly backup runs at 02:00 UTC", wait="indexed", tags=["ops"]
        )
        soon = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
        body = "The nightly backup runs at 03:00 UTC"
        changed = await member.update(
            saved.id, body=body, expires_at=soon, force=True, wait="indexed"
        )
        assert changed.status == "updated"
        assert (changed.memory.revision, changed.memory.corrections) == (2, 1)
        assert changed.memory.expires_at == soon
        assert changed.memory.tags == ["ops"]  # only the fields given change
        never = await member.update(saved.id, expires_at=None)
        assert never.status == "updated" and never.memory.expires_at is None
        assert (await member.recall("when does the nightly backup run?"))[0].body.endswith(
            "03:00 UTC"
        )

        assert (await member.pin(saved.id)).memory.pinned is True
        assert (await member.pin(saved.id)).status == "unchanged"
        assert (await member.unpin(saved.id)).memory.pinned is False
        assert [r.revision for r in await member.revisions(saved.id)] == [1, 2, 3, 4, 5]

        trusted = (await member.get(saved.id)).trust
        flagged = await member.flag(saved.id, "unverified", "nobody checked the new time")
        assert flagged.flag_id and flagged.memory.trust < trusted
        flags = await member.flags(saved.id)
        assert [(f.id, f.kind, f.reason) for f in flags] == [
            (flagged.flag_id, "unverified", "nobody checked the new time")
        ]
        assert (await member.get(saved.id)).flags == flags
        cleared = await member.clear_flags(saved.id, [flagged.flag_id])
        assert cleared.memory.flags == [] and await member.flags(saved.id) == []
        await member.flag(saved.id, "wrong", "first")
        await member.flag(saved.id, "outdated", "second")
        assert len(await member.flags(saved.id)) == 2
        assert (await member.clear_flags(saved.id)).memory.flags == []  # every flag

        confirmed = await member.confirm(saved.id)
        assert confirmed.memory.confirmations == 1 and confirmed.memory.trust > trusted
        with pytest.raises(InvalidRequest) as bad:
            await member.flag(saved.id, "rumour", "")
        assert {p.field for p in bad.value.problems} == {"kind", "reason"}


async def test_consolidation_and_skills(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with client_for(await stack.token(workspace)) as member:
        first = await member.save("fact", "Staging deploys need a green CI run", wait="indexed")
        second = await member.save(
            "fact", "Staging deploys are announced in #deploys", wait="indexed", force=True
        )
        merged = await member.consolidate(
            [first.id, second.id],
            body="Staging deploys need a green CI run and are announced in #deploys",
            wait="indexed",
        )
        assert merged.consolidated == [first.id, second.id]
        assert {(e.kind, e.dst_id) for e in await member.edges(merged.id)} == {
            ("updates", first.id),
            ("updates", second.id),
        }
        assert (await member.recall("how do staging deploys work?"))[0].id == merged.id

        steps = "1. Tag the commit\n2. Run the release job\n3. Announce it"
        procedure = await member.save("procedure", steps, wait="indexed")
        for _ in range(3):
            await member.confirm(procedure.id)
        candidates = await member.skill_candidates()
        assert [m.id for m in candidates.items] == [procedure.id]
        assert candidates.threshold == 3 and candidates.next_cursor is None

        skill = await member.crystallize(procedure.id, name="release-steps", wait="indexed")
        assert (skill.name, skill.status) == ("release-steps", "crystallized")
        assert skill.filename == "release-steps/SKILL.md"
        assert skill.skill_md.startswith("---\nname: release-steps\n")
        assert "1. Tag the commit\n2. Run the release job\n3. Announce it" in skill.skill_md
        assert skill.memories[0].promoted_at is not None
        downloaded = await member.skill(procedure.id, name="release-steps")
        assert downloaded.startswith("---\nname: release-steps\n")
        assert "2. Run the release job" in downloaded
        assert (await member.skill_candidates()).items == []  # promoted now
        listed = await member.skills()
        assert [(k.id, k.download) for k in listed.items] == [
            (procedure.id, f"/v1/memories/{procedure.id}/skill")
        ]
        assert listed.items[0].promoted_at is not None and listed.next_cursor is None


async def test_products_tokens_and_the_audit_log(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    root = await stack.infra.tokens.issue(Principal(workspace, "root", Role.ADMIN))
    async with client_for(root) as admin:
        product = await admin.put_product("shop", "public", name="The shop")
        assert (product.product_id, product.visibility, product.name) == (
            "shop",
            "public",
            "The shop",
        )
        assert await admin.product("shop") == product
        assert [p.product_id for p in await admin.products()] == ["shop"]
        saved = await admin.save(
            "fact", "The shop closes at 18:00", product_id="shop", wait="indexed"
        )
        assert saved.memory.visibility == "public"  # the product's, inherited
        with pytest.raises(NotFound):
            await admin.product("no-such-product")

        issued = await admin.create_token("bot-1", role="viewer", name="reader bot")
        assert issued.token.startswith(f"mh_{issued.id}_")
        assert (issued.user, issued.role, issued.name) == ("bot-1", "viewer", "reader bot")
        listed = {t.id: t for t in await admin.tokens()}
        assert listed[issued.id].user == "bot-1" and "token" not in listed[issued.id].model_extra
        async with client_for(issued.token) as bot:
            assert [m.id for m in await bot.recall("when does the shop close?")] == [saved.id]
            with pytest.raises(Forbidden):
                await bot.save("fact", "A viewer cannot write")
        rotated = await admin.rotate_token(issued.id, grace="1h")
        assert rotated.id == issued.id and rotated.token != issued.token
        assert rotated.rotated_at is not None
        async with (
            client_for(issued.token) as old,
            client_for(rotated.token) as new,
        ):
            assert (await old.health())["status"] == "ok"
            assert await old.list() is not None  # the old secret keeps its grace hour
            assert await new.list() is not None
        revoked = await admin.revoke_token(issued.id)
        assert (revoked.id, revoked.status) == (issued.id, "revoked")
        async with client_for(rotated.token) as gone:
            await refused_soon(gone)

        async def audited() -> list[str]:
            page = await admin.audit(target=issued.id)
            return [e.action for e in page.items]

        for _ in range(100):
            if len(actions := await audited()) == 3:
                break
            await asyncio.sleep(0.05)
        assert actions == ["token_revoke", "token_rotate", "token_create"]  # newest first
        newest = await admin.audit(action="save", limit=1)  # the viewer's refused save
        older = await admin.audit(action="save", limit=1, cursor=newest.next_cursor)
        assert [(e.action, e.target, e.user, e.outcome) for e in newest.items + older.items] == [
            ("save", "", "bot-1", "denied"),
            ("save", saved.id, "root", "ok"),
        ]
        await admin.save("fact", "The depot opens at 6", product_id="depot", wait="indexed")
        scopes = await admin.scopes()
        assert [(s.scope_path, s.name, s.recorded) for s in scopes.items] == [
            ("global", None, None),
            ("product:depot", None, False),
            ("product:shop", "The shop", True),
        ]
        assert scopes.complete
    async with client_for(await stack.token(workspace)) as member:
        with pytest.raises(Forbidden):
            await member.tokens()
        with pytest.raises(Forbidden):
            await member.audit()


async def refused_soon(client: AsyncMemhiveClient) -> None:
    """Revocation reaches every replica within about a second."""
    for _ in range(250):
        try:
            await client.list(limit=1)
        except Unauthorized:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the revoked token is still accepted")


async def test_scope_paths_on_save_list_recall_and_context(
    stack: Stack, client_for: ClientFor
) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    mobile, web = "product:ios/team:mobile", "product:ios/team:web"
    async with client_for(await stack.token(workspace)) as member:
        ours = await member.save(
            "decision", "Mobile reviews designs on Thursdays", scope_path=mobile, wait="indexed"
        )
        theirs = await member.save(
            "decision", "Web reviews designs on Tuesdays", scope_path=web, wait="indexed"
        )
        assert (ours.memory.scope_path, ours.memory.team_id) == (mobile, "mobile")
        assert [m.id for m in (await member.list(scope_path=mobile)).items] == [ours.id]
        assert [m.id async for m in member.iter_memories(scope_path=web)] == [theirs.id]
        hits = await member.recall("when are designs reviewed?", scope_path=mobile)
        assert [h.id for h in hits] == [ours.id]
        pack = await member.context(400, query="design reviews", scope_path=mobile)
        assert "Thursdays" in pack.text and "Tuesdays" not in pack.text
        assert theirs.id not in [i.id for i in pack.items]
        with pytest.raises(InvalidRequest) as bad:
            await member.list(scope_path="team:web/product:ios")
        assert [p.field for p in bad.value.problems] == ["scope_path"]


async def test_the_sync_client_changes_memories_over_a_real_socket(
    stack: Stack, gateway_url: str
) -> None:
    token = await stack.infra.tokens.issue(
        Principal(f"ws-{uuid.uuid4().hex[:12]}", "root", Role.ADMIN)
    )

    def use_it() -> tuple[bool, bool, list[str], int, str, list[str]]:
        with MemhiveClient(gateway_url, token) as memhive:
            saved = memhive.save("todo", "Renew the TLS certificate", wait="indexed")
            pinned = memhive.pin(saved.id).memory.pinned
            unpinned = memhive.unpin(saved.id).memory.pinned
            flag = memhive.flag(saved.id, "outdated", "renewed last week")
            kinds = [f.kind for f in memhive.flags(saved.id)]
            confirmations = memhive.confirm(saved.id).memory.confirmations
            product = memhive.put_product("infra", "private").visibility
            created = memhive.create_token("b")
            users = [t.user for t in memhive.tokens() if t.id == created.id]
            assert flag.flag_id
            return pinned, unpinned, kinds, confirmations, product, users

    assert await asyncio.to_thread(use_it) == (True, False, ["outdated"], 1, "private", ["b"])


def request_body_schemas(spec: dict) -> set[str]:
    """The name of every schema some route takes as its JSON body."""
    names = set()
    for operations in spec["paths"].values():
        for operation in operations.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            schema = body["schema"]
            for ref in [schema, *schema.get("anyOf", [])]:
                if "$ref" in ref:
                    names.add(ref["$ref"].rsplit("/", 1)[-1])
    return names


async def test_every_request_model_agrees_with_the_openapi_document(stack: Stack) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(stack.app), base_url="http://memhive"
    ) as http:
        spec = (await http.get("/openapi.json")).json()
    names = request_body_schemas(spec)
    assert {"SaveRequest", "UpdateRequest", "RotateTokenRequest"} <= names  # found them
    for name in sorted(names):
        model = getattr(client_models, name, None)
        assert model is not None, f"memhive_client.models has no {name}"
        schema = spec["components"]["schemas"][name]
        assert set(model.model_fields) == set(schema["properties"]), name
        required = {n for n, f in model.model_fields.items() if f.is_required()}
        assert required == set(schema.get("required", [])), name


async def test_time_windows_through_the_client(stack: Stack, client_for: ClientFor) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with client_for(await stack.token(workspace)) as memhive:
        then = await memhive.save(
            "event",
            "The team moved offices",
            occurred_at=datetime(2024, 3, 1, tzinfo=UTC),
            wait="indexed",
        )
        await memhive.save("event", "The team hired a designer", wait="indexed")
        early = datetime(2025, 1, 1, tzinfo=UTC)

        listed = await memhive.list(occurred_before=early)
        recalled = await memhive.recall("what did the team do", occurred_before=early)
        changed = await memhive.update(then.id, occurred_at=None, wait="indexed")

    assert [m.id for m in listed.items] == [then.id]
    assert listed.items[0].occurred_at == datetime(2024, 3, 1, tzinfo=UTC)
    assert [r.id for r in recalled] == [then.id]
    assert changed.memory.occurred_at is None
