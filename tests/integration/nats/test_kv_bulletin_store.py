"""KvBulletinStore against a real nats-server: round trip, audiences and scopes kept apart."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from memhive_adapters.nats.kv_bulletin_store import KvBulletinStore
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import Audience
from memhive_domain.scopes import Scope, ScopeRef
from nats.js import JetStreamContext

GLOBAL = ScopeRef(Scope.GLOBAL)
# ':' and '.' are legal in product ids but not as such in KV keys.
PRODUCT = ScopeRef(Scope.PRODUCT, "acme:billing.v2")


def bulletin(scope: ScopeRef, text: str) -> Bulletin:
    return Bulletin(
        scope_key=scope.key,
        text=text,
        token_count=7,
        generated_at=datetime(2026, 1, 2, 3, 4, 5, 600000, tzinfo=UTC),
        renderer="deterministic/1",
        sources=(("a", 1), ("b", 3)),
        shown_ids=("b", "a"),
        fingerprint="f" * 64,
        pinned_over_budget=True,
    )


@pytest.fixture
async def store(js: JetStreamContext) -> KvBulletinStore:
    return await KvBulletinStore.open(js)


async def test_round_trip_keeps_every_field(store: KvBulletinStore) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    written = bulletin(PRODUCT, "# Memory bulletin\n- [a] ünïcode…")
    await store.put(ws, PRODUCT, Audience.MEMBERS, written)
    assert await store.get(ws, PRODUCT, Audience.MEMBERS) == written


async def test_absent_is_none_and_keys_do_not_mix(store: KvBulletinStore) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    await store.put(ws, GLOBAL, Audience.MEMBERS, bulletin(GLOBAL, "members"))
    await store.put(ws, GLOBAL, Audience.PUBLIC, bulletin(GLOBAL, "public"))
    await store.put(ws, PRODUCT, Audience.MEMBERS, bulletin(PRODUCT, "product"))
    assert (await store.get(ws, GLOBAL, Audience.MEMBERS)).text == "members"
    assert (await store.get(ws, GLOBAL, Audience.PUBLIC)).text == "public"
    assert await store.get(ws, PRODUCT, Audience.PUBLIC) is None
    assert await store.get("other-ws", GLOBAL, Audience.MEMBERS) is None


async def test_put_replaces(store: KvBulletinStore) -> None:
    ws = f"ws-{uuid.uuid4().hex[:8]}"
    await store.put(ws, GLOBAL, Audience.MEMBERS, bulletin(GLOBAL, "old"))
    await store.put(ws, GLOBAL, Audience.MEMBERS, bulletin(GLOBAL, "new"))
    assert (await store.get(ws, GLOBAL, Audience.MEMBERS)).text == "new"
