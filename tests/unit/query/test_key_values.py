"""Key/value memory use cases over the fake store: who reads and writes which node, compare-
and-set, TTL, paging, and the audit entries of writes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memhive_application.audit_trail import AuditTrail
from memhive_domain.audit import AuditEntry, AuditQuery
from memhive_domain.errors import InvalidInput, NotAllowed, NotFound
from memhive_domain.kv import RevisionMismatch, WriteRequest
from memhive_domain.principals import Principal, Role
from memhive_ports import AuditPage
from memhive_query.use_cases.audit import AuditedKeyValues
from memhive_query.use_cases.key_values import KeyValues

from tests.fakes import FakeKeyValueStore, FixedClock

MEMBER = Principal("ws", "ada")
VIEWER = Principal("ws", "guest", Role.VIEWER)
BOB = Principal("ws", "bob", Role.AGENT, "product:ios/team:mobile/agent:bob")
EVE = Principal("ws", "eve", Role.AGENT, "product:ios/team:mobile/agent:eve")
OTHER_WORKSPACE = Principal("ws2", "ada")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def kv(clock: FixedClock) -> KeyValues:
    return KeyValues(FakeKeyValueStore(clock), clock)


def put(scope: str, key: str, value: object, **fields: object) -> WriteRequest:
    return WriteRequest(scope, key, value, **fields)


def problem_fields(refused: pytest.ExceptionInfo[InvalidInput]) -> set[str]:
    return {p.field for p in refused.value.problems}


async def test_a_value_is_read_back_where_it_was_written(kv: KeyValues) -> None:
    written = await kv.put(MEMBER, put("product:ios", "release", {"train": "2.1", "ok": True}))
    got = await kv.get(MEMBER, "product:ios", "release")

    assert got.value == {"train": "2.1", "ok": True} and got.revision == written.revision
    assert got.updated_by == "ada" and got.address.node.key == "product:ios"
    with pytest.raises(NotFound):
        await kv.get(MEMBER, "global", "release")  # another node, another entry
    with pytest.raises(NotFound):
        await kv.get(OTHER_WORKSPACE, "product:ios", "release")  # another workspace


async def test_viewers_neither_read_nor_write(kv: KeyValues) -> None:
    await kv.put(MEMBER, put("global", "banner", "hello"))
    for attempt in (
        kv.get(VIEWER, "global", "banner"),
        kv.list(VIEWER, "global", None, 10),
        kv.put(VIEWER, put("global", "banner", "defaced")),
        kv.delete(VIEWER, "global", "banner"),
    ):
        with pytest.raises(NotAllowed, match="viewer"):
            await attempt
    assert (await kv.get(MEMBER, "global", "banner")).value == "hello"


async def test_the_scope_tree_decides_where_an_agent_reads_and_writes(kv: KeyValues) -> None:
    await kv.put(MEMBER, put("global", "policy", 1))
    await kv.put(BOB, put("product:ios/team:mobile/agent:bob", "scratch", "mine"))
    await kv.put(BOB, put("product:ios/team:mobile", "board", ["a"]))

    assert (await kv.get(BOB, "global", "policy")).value == 1  # an ancestor: readable
    with pytest.raises(NotAllowed, match="global"):
        await kv.put(BOB, put("global", "policy", 2))  # not root-homed: no writing global
    for sibling_reads in (
        kv.get(EVE, "product:ios/team:mobile/agent:bob", "scratch"),
        kv.list(EVE, "product:ios/team:mobile/agent:bob", None, 10),
        kv.put(EVE, put("product:ios/team:mobile/agent:bob", "scratch", "hers")),
        kv.get(BOB, "product:android", "anything"),
    ):
        with pytest.raises(NotAllowed, match="outside this token's scope tree"):
            await sibling_reads
    assert (await kv.get(EVE, "product:ios/team:mobile", "board")).value == ["a"]
    assert (await kv.get(BOB, "product:ios/team:mobile/agent:bob", "scratch")).value == "mine"


async def test_compare_and_set_by_body_or_header_and_create_only(kv: KeyValues) -> None:
    first = await kv.put(MEMBER, put("global", "n", 1, create_only=True))
    with pytest.raises(RevisionMismatch) as exists:
        await kv.put(MEMBER, put("global", "n", 9, create_only=True))
    assert exists.value.current == first.revision

    second = await kv.put(MEMBER, put("global", "n", 2, revision=first.revision))
    third = await kv.put(MEMBER, put("global", "n", 3, if_match=f'"{second.revision}"'))
    with pytest.raises(RevisionMismatch) as stale:
        await kv.put(MEMBER, put("global", "n", 4, if_match=str(first.revision)))
    assert stale.value.current == third.revision
    with pytest.raises(RevisionMismatch):
        await kv.delete(MEMBER, "global", "n", revision=second.revision)
    await kv.delete(MEMBER, "global", "n", if_match=f'"{third.revision}"')
    with pytest.raises(NotFound):
        await kv.delete(MEMBER, "global", "n")


async def test_every_problem_is_reported_at_once_before_access_is_decided(kv: KeyValues) -> None:
    with pytest.raises(InvalidInput) as refused:
        await kv.put(
            BOB,  # may not write global, but the input is checked first
            put(
                "global/nope",
                "a/b",
                {"x": float("nan")},
                ttl_s=0,
                revision=-1,
                if_match="soon",
                create_only=True,
            ),
        )
    assert problem_fields(refused) == {"scope", "key", "value", "ttl_s", "revision", "If-Match"}
    with pytest.raises(InvalidInput) as listing:
        await kv.list(MEMBER, "team:", "nope", 0)
    assert problem_fields(listing) == {"scope", "cursor", "limit"}


async def test_an_entry_with_a_ttl_is_gone_once_it_expires(
    kv: KeyValues, clock: FixedClock
) -> None:
    written = await kv.put(MEMBER, put("team:ops", "lease", "held", ttl_s=30))
    assert written.expires_at == clock.now() + timedelta(seconds=30)

    clock.current += timedelta(seconds=30)
    with pytest.raises(NotFound):
        await kv.get(MEMBER, "team:ops", "lease")
    assert (await kv.list(MEMBER, "team:ops", None, 10)).entries == []
    await kv.put(MEMBER, put("team:ops", "lease", "taken again", create_only=True))


async def test_listing_pages_with_a_cursor(kv: KeyValues) -> None:
    for n in range(5):
        await kv.put(MEMBER, put("product:ios", f"k{n}", n))
    await kv.put(MEMBER, put("global", "elsewhere", 0))

    keys, cursor = [], None
    while True:
        page = await kv.list(MEMBER, "product:ios", cursor, 2)
        keys += [e.address.key for e in page.entries]
        if (cursor := page.next_cursor) is None:
            break
    assert keys == ["k0", "k1", "k2", "k3", "k4"]


class RecordedAudit:
    def __init__(self) -> None:
        self.entries: list[AuditEntry] = []

    async def append(self, entry: AuditEntry) -> None:
        self.entries.append(entry)

    async def read(self, workspace_id: str, query: AuditQuery, before=None) -> AuditPage:
        return AuditPage(self.entries[::-1], None)


async def test_writes_are_audited_with_their_outcome(kv: KeyValues, clock: FixedClock) -> None:
    log = RecordedAudit()
    audited = AuditedKeyValues(kv, AuditTrail(log, clock))
    written = await audited.put(MEMBER, put("global", "plan", [1]))
    with pytest.raises(NotAllowed):
        await audited.put(VIEWER, put("global", "plan", [2]))
    with pytest.raises(RevisionMismatch):
        await audited.put(MEMBER, put("global", "plan", [3], revision=written.revision + 1))
    await audited.get(MEMBER, "global", "plan")  # reads are not audited
    await audited.list(MEMBER, "global", None, 10)
    await audited.delete(MEMBER, "global", "plan")

    assert [(e.action.value, e.user_id, e.outcome.value, e.target) for e in log.entries] == [
        ("kv_put", "ada", "ok", "kv:global/plan"),
        ("kv_put", "guest", "denied", "kv:global/plan"),
        ("kv_put", "ada", "rejected", "kv:global/plan"),
        ("kv_delete", "ada", "ok", "kv:global/plan"),
    ]
