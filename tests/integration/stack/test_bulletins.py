"""Bulletins and context packs through the running stack: REST, MCP and the bulletin service."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from memhive.v1 import bulletins_pb2
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter
from memhive_application.bulletins.scope_bulletins import ScopeBulletins
from memhive_application.bulletins.scope_reader import ScopeReader
from memhive_bulletin.app import create_bulletin
from memhive_contracts import streams, subjects
from memhive_contracts.codec import decode
from memhive_domain.bulletin import BulletinBudget
from memhive_domain.bulletin_audience import Audience
from memhive_domain.scopes import Scope, ScopeRef

from tests.fakes import FakeBulletinStore, FixedClock
from tests.integration.stack.conftest import Stack, Workspace, save
from tests.integration.stack.test_mcp_tools import session, text

COUNTER = TiktokenCounter()
GLOBAL = ScopeRef(Scope.GLOBAL)


async def bulletin(client, scope: str = "global", **params) -> dict:
    response = await client.get(f"/v1/bulletins/{scope}", params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_bulletin_pins_first_cites_ids_and_counts_real_tokens(workspace: Workspace) -> None:
    pinned = await save(
        workspace.member, kind="fact", body="Prod DB is read-only on Sundays", pinned=True
    )
    decision = await save(
        workspace.member,
        kind="decision",
        body="We ship with trunk-based development",
        importance=0.9,
    )
    fact = await save(workspace.member, kind="fact", body="The CI runners use Ubuntu 24.04")
    got = await bulletin(workspace.member)
    assert got["scope"] == "global" and got["product_id"] is None
    assert got["renderer"] == "deterministic/1"
    lines = got["text"].split("\n")
    assert lines[0] == "# Memory bulletin: global"
    assert lines[1].startswith("## Pinned") and pinned["id"] in lines[2]
    assert got["memory_ids"][0] == pinned["id"]
    assert {decision["id"], fact["id"]} <= set(got["memory_ids"])
    assert f"- [{fact['id']}] The CI runners use Ubuntu 24.04" in lines
    assert got["token_count"] == COUNTER.count(got["text"])


async def test_the_same_bulletin_is_served_byte_identical(workspace: Workspace) -> None:
    await save(workspace.member, kind="goal", body="Cut p99 recall latency below 50 ms")
    first, second = await bulletin(workspace.member), await bulletin(workspace.member)
    assert first == second


async def test_a_non_member_never_sees_a_private_memory(workspace: Workspace) -> None:
    secret = await save(
        workspace.member,
        kind="fact",
        body="The root password rotates monthly",
        pinned=True,
        visibility="private",
    )
    public = await save(
        workspace.member, kind="fact", body="The docs site is public", visibility="public"
    )
    as_reader = await bulletin(workspace.reader)
    as_member = await bulletin(workspace.member)
    assert public["id"] in as_reader["memory_ids"]
    assert secret["id"] not in as_reader["text"] and "root password" not in as_reader["text"]
    assert {secret["id"], public["id"]} <= set(as_member["memory_ids"])


async def test_product_bulletins_hold_only_their_product(workspace: Workspace) -> None:
    mine = await save(workspace.member, kind="fact", body="Acme invoices in EUR", product_id="acme")
    other = await save(
        workspace.member, kind="fact", body="Globex invoices in USD", product_id="globex"
    )
    got = await bulletin(workspace.member, "product", product_id="acme")
    assert got["scope"] == "product" and got["product_id"] == "acme"
    assert mine["id"] in got["memory_ids"] and other["id"] not in got["text"]
    missing = await workspace.member.get("/v1/bulletins/product")
    unknown = await workspace.member.get("/v1/bulletins/galaxy")
    assert missing.status_code == unknown.status_code == 422


async def test_the_service_refreshes_a_changed_scope(stack: Stack, workspace: Workspace) -> None:
    await save(workspace.member, kind="fact", body="Deploys need two approvals")
    before = await bulletin(workspace.member)
    events = await stack.infra.nats.subscribe(
        subjects.for_workspace(subjects.BULLETIN_REFRESHED, workspace.id)
    )
    added = await save(workspace.member, kind="todo", body="Rotate the signing keys")
    refreshed = await _refresh_showing(events, added["id"])
    await events.unsubscribe()
    after = await bulletin(workspace.member)
    assert added["id"] not in before["memory_ids"]
    assert after["text"] == refreshed.text and after["fingerprint"] == refreshed.fingerprint
    assert refreshed.token_count == COUNTER.count(refreshed.text)
    assert [s.id for s in refreshed.sources] == sorted(s.id for s in refreshed.sources)


async def _refresh_showing(events, memory_id: str) -> bulletins_pb2.BulletinRefreshed:
    async with asyncio.timeout(60):
        while True:
            msg = await events.next_msg(timeout=60)
            event = decode(msg.data, bulletins_pb2.BulletinRefreshed)
            if memory_id in event.shown_memory_ids:
                return event


async def test_a_tight_budget_is_respected_exactly_and_pinned_survive(
    stack: Stack, workspace: Workspace
) -> None:
    pinned = await save(
        workspace.member,
        kind="identity",
        body="This workspace belongs to the payments team",
        pinned=True,
    )
    for i in range(8):
        await save(
            workspace.member,
            kind="fact",
            body=f"Service {i} exposes its metrics on port {9100 + i} via Prometheus scraping",
        )
    _, lexical = await stack.infra.lanes()
    budget = BulletinBudget(total_tokens=90, per_section_tokens=60)
    scopes = ScopeBulletins(
        ScopeReader(stack.infra.store, lexical),
        FakeBulletinStore(),
        COUNTER,
        budget,
        stack.infra.clock,
    )
    inputs = await scopes.read(workspace.id, ScopeRef(Scope.GLOBAL))
    rendered = scopes.render(inputs).bulletins[Audience.MEMBERS]
    assert rendered.token_count == COUNTER.count(rendered.text) <= 90
    assert pinned["id"] in rendered.shown_ids
    assert "of 8 shown)" in rendered.text and "(8 of 8 shown)" not in rendered.text
    again = scopes.render(await scopes.read(workspace.id, ScopeRef(Scope.GLOBAL)))
    assert again.bulletins[Audience.MEMBERS].text == rendered.text


async def test_context_pack_fits_the_budget_with_pinned_and_relevant(workspace: Workspace) -> None:
    pinned = await save(
        workspace.member, kind="fact", body="Never deploy during the quarterly audit", pinned=True
    )
    # The Facts section (500 tokens by default) cannot show all of these: the least important,
    # the relevant one, is left out of the bulletin and comes back as a relevant item.
    filler = " ".join(f"detail{n}" for n in range(30))
    for i in range(14):
        await save(
            workspace.member,
            kind="fact",
            body=f"Runbook {i} for the ingestion fleet: {filler}",
            importance=0.6,
        )
    relevant = await save(
        workspace.member,
        kind="fact",
        body="The Redis cache evicts keys under memory pressure",
        importance=0.1,
    )
    shown = await bulletin(workspace.member)
    assert relevant["id"] not in shown["memory_ids"]
    budget = shown["token_count"] + 60
    response = await workspace.member.post(
        "/v1/context", json={"query": "why are Redis keys disappearing?", "token_budget": budget}
    )
    assert response.status_code == 200, response.text
    pack = response.json()
    assert pack["tokens_used"] == COUNTER.count(pack["text"]) <= budget
    assert pack["text"].startswith(shown["text"])
    assert pinned["id"] in pack["text"]
    assert {"id": relevant["id"], "class": "relevant"} in pack["items"]


async def test_a_small_context_budget_keeps_the_pinned_lines_first(workspace: Workspace) -> None:
    pinned = await save(
        workspace.member, kind="fact", body="Never deploy during the quarterly audit", pinned=True
    )
    for i in range(6):
        await save(
            workspace.member,
            kind="fact",
            body=f"Team ritual {i}: standup notes are posted in channel {i}",
        )
    response = await workspace.member.post("/v1/context", json={"token_budget": 70})
    pack = response.json()
    assert pack["tokens_used"] == COUNTER.count(pack["text"]) <= 70
    assert pack["bulletin_truncated"] is True
    assert pinned["id"] in pack["text"]


async def test_context_pack_rejects_a_budget_out_of_range(workspace: Workspace) -> None:
    for budget in (0, 32_001):
        response = await workspace.member.post("/v1/context", json={"token_budget": budget})
        assert response.status_code == 422, response.text


async def test_context_pack_for_a_non_member_holds_no_private_memory(workspace: Workspace) -> None:
    secret = await save(
        workspace.member,
        kind="fact",
        body="The HSM PIN is kept in the red safe",
        pinned=True,
        visibility="private",
    )
    await save(workspace.member, kind="fact", body="The HSM vendor is Thales", visibility="public")
    response = await workspace.reader.post(
        "/v1/context", json={"query": "HSM", "token_budget": 500}
    )
    assert response.status_code == 200, response.text
    assert secret["id"] not in response.text and "red safe" not in response.text


async def test_mcp_tools_serve_the_bulletin_and_the_context_pack(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    pinned = await save(
        workspace.member, kind="preference", body="Answer in British English", pinned=True
    )
    async with session(gateway_url, await stack.token(workspace.id)) as agent:
        got = await agent.call_tool("get_memory_bulletin", {"scope": "global"})
        pack = await agent.call_tool("get_context", {"query": "spelling", "token_budget": 200})
    assert not got.is_error and not pack.is_error, text(got) + text(pack)
    assert pinned["id"] in text(got) and pinned["id"] in got.structured_content["memory_ids"]
    assert pinned["id"] in text(pack)
    assert pack.structured_content["tokens_used"] <= 200


async def test_a_burst_of_50_saves_renders_once_after_the_quiet_period(
    stack: Stack, workspace: Workspace
) -> None:
    clock = FixedClock(datetime.now(UTC))
    durable = f"bulletin-test-{uuid.uuid4().hex[:8]}"
    service = await create_bulletin(
        stack.infra, clock=clock, durable=durable, workspaces=workspace.id
    )
    await service.consumer.start()  # the scheduler is driven by hand, on simulated time
    try:
        for i in range(50):
            await save(
                workspace.member, kind="fact", body=f"Burst fact number {i} about subsystem {i * 7}"
            )
        await _consumed(stack, durable)
        assert await service.scheduler.run_due() == 0
        refreshes = 0
        for _ in range(100):  # 100 simulated seconds: one render after the quiet period, then none
            clock.advance(1)
            refreshes += await service.scheduler.run_due()
        assert refreshes == 1
        assert service.scheduler.next_wakeup() is None
    finally:
        await service.consumer.stop()
        await stack.infra.js.delete_consumer(streams.LOG_STREAM, durable)


async def test_a_refresh_rereads_only_what_events_named_and_shows_every_change(
    stack: Stack, workspace: Workspace
) -> None:
    """The service keeps the records it read: after an update and a save in a scope of 40,
    its next refresh reads the changed records (and the ends of new links), not all 41, and
    reads the same inputs a full read of the record does."""
    clock = FixedClock(datetime.now(UTC))
    durable = f"bulletin-test-{uuid.uuid4().hex[:8]}"
    service = await create_bulletin(
        stack.infra, clock=clock, durable=durable, workspaces=workspace.id
    )
    await service.consumer.start()
    try:
        kept = [
            await save(workspace.member, kind="fact", body=f"Standing fact {i}: rack {i * 3}")
            for i in range(40)
        ]
        await _settled(stack, durable)  # the classifier's links among the 40 landed before
        clock.advance(60)
        assert await service.scheduler.run_due() == 1
        read_before = service.records.reads
        corrected = "Standing fact 0 was corrected: rack 99"
        patched = await workspace.member.patch(
            f"/v1/memories/{kept[0]['id']}?wait=indexed", json={"body": corrected}
        )
        assert patched.status_code == 200, patched.text
        added = await save(workspace.member, kind="fact", body="A new fact about the racks")
        await _settled(stack, durable)
        clock.advance(60)
        assert await service.scheduler.run_due() == 1
        # The two changed records, and the other end of each link the classifier made to
        # them (near-duplicates: how many depends on the run), each read for its scopes and
        # again at the refresh; never all 41.
        changed = await stack.infra.store.get_many(workspace.id, [kept[0]["id"], added["id"]])
        ends = {e.other_end(i) for i, s in changed.items() for e in s.edges}
        reads = service.records.reads - read_before
        assert reads <= 2 + 2 * len(ends) and reads < 41, (reads, len(ends))

        _, lexical = await stack.infra.lanes()
        now = clock.now()
        held = await ScopeReader(service.records, lexical).read(workspace.id, GLOBAL, now)
        full = await ScopeReader(stack.infra.store, lexical).read(workspace.id, GLOBAL, now)
        assert _revisions(held) == _revisions(full) and held.superseded == full.superseded
        bodies = {m.id: m.body for m in held.memories}
        assert bodies[kept[0]["id"]] == corrected and added["id"] in bodies
    finally:
        await service.consumer.stop()
        await stack.infra.js.delete_consumer(streams.LOG_STREAM, durable)


async def test_new_memories_cost_the_refresh_no_read_and_a_superseding_save_keeps_its_edge(
    stack: Stack, workspace: Workspace
) -> None:
    """A service that started before the saves keeps each new memory's MemoryIndexed copy;
    a save that supersedes another links it, and the refresh still renders that edge, as a
    full read does (the order where MemoriesLinked comes first: test_record_cache.py)."""
    clock = FixedClock(datetime.now(UTC) - timedelta(minutes=1))
    durable = f"bulletin-test-{uuid.uuid4().hex[:8]}"
    service = await create_bulletin(
        stack.infra, clock=clock, durable=durable, workspaces=workspace.id
    )
    await service.consumer.start()
    try:
        bodies = ["The cafeteria opens at eight", "Backups run nightly at two",
                  "The VPN gateway lives in Frankfurt", "Interns start in September"]  # fmt: skip
        saved = [await save(workspace.member, kind="fact", body=b) for b in bodies]
        old = saved[1]
        new = await save(
            workspace.member,
            kind="fact",
            body="Backups moved to run hourly",
            supersedes=[old["id"]],
        )
        await _settled(stack, durable)
        clock.advance(120)
        assert await service.scheduler.run_due() == 1
        # The ends of the links (the supersession's two, and any near-duplicates the
        # classifier linked: how many depends on the run), read for their scopes; never a
        # plain save nothing links.
        ids = [s["id"] for s in saved] + [new["id"]]
        records = await stack.infra.store.get_many(workspace.id, ids)
        ends = {memory_id for memory_id, stored in records.items() if stored.edges}
        assert service.records.reads <= len(ends), (service.records.reads, len(ends))

        _, lexical = await stack.infra.lanes()
        now = clock.now()
        held = await ScopeReader(service.records, lexical).read(workspace.id, GLOBAL, now)
        full = await ScopeReader(stack.infra.store, lexical).read(workspace.id, GLOBAL, now)
        assert held.fingerprint == full.fingerprint
        assert old["id"] in held.superseded[Audience.MEMBERS]
        assert {m.id for m in held.memories} >= {s["id"] for s in saved} | {new["id"]}
    finally:
        await service.consumer.stop()
        await stack.infra.js.delete_consumer(streams.LOG_STREAM, durable)


def _revisions(inputs) -> dict[str, tuple[int, str]]:
    return {m.id: (m.revision, m.body) for m in inputs.memories}


async def _consumed(stack: Stack, durable: str) -> None:
    async with asyncio.timeout(120):
        while True:
            info = await stack.infra.js.consumer_info(streams.LOG_STREAM, durable)
            if info.num_pending == 0 and info.num_ack_pending == 0:
                return
            await asyncio.sleep(0.1)


async def _settled(stack: Stack, durable: str) -> None:
    """`durable` and every service consumer drained, twice in a row: the link classifier's
    links (a command, then an event) have landed, so none arrives during what follows."""
    names = (durable, "ingest", "embed", "link-classifier")
    async with asyncio.timeout(120):
        quiet = 0
        while quiet < 2:
            infos = [await stack.infra.js.consumer_info(streams.LOG_STREAM, n) for n in names]
            idle = all(i.num_pending == 0 and i.num_ack_pending == 0 for i in infos)
            quiet = quiet + 1 if idle else 0
            await asyncio.sleep(0.3)
