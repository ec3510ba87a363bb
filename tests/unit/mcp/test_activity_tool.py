"""recent_activity through an MCP session over the fake API: what it asks for and the lines
the model reads."""

from __future__ import annotations

from tests.unit.mcp.conftest import Connect
from tests.unit.mcp.fake_api import FakeMemoryApi
from tests.unit.mcp.test_memory_flows import call, text_of


def memory(memory_id: str, summary: str | None) -> dict:
    return {
        "id": memory_id,
        "kind": "fact",
        "scope_path": "product:ios",
        "revision": 1,
        "summary": summary,
    }


ENTRIES = [
    {
        "kind": "recalled",
        "time": "2026-06-01T10:03:00Z",
        "actor": "bob",
        "memories": [memory("m1", "iOS ships on Fridays")],
        "edges": [],
        "query": "when do we ship?",
        "reason": None,
    },
    {
        "kind": "linked",
        "time": "2026-06-01T10:02:00Z",
        "actor": "eve",
        "memories": [memory("m2", "x"), memory("m1", "y")],
        "edges": [{"src_id": "m2", "dst_id": "m1", "kind": "updates"}],
        "query": None,
        "reason": None,
    },
    {
        "kind": "forgotten",
        "time": "2026-06-01T10:01:00Z",
        "actor": "ada",
        "memories": [memory("m0", None)],
        "edges": [],
        "query": None,
        "reason": "wrong",
    },
]


async def test_recent_activity_asks_for_a_scope_and_kinds_and_reads_as_lines(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    fake_api.activity_items = ENTRIES
    async with connect() as client:
        result = await call(
            client,
            "recent_activity",
            scope_path="product:ios",
            kinds=["recalled", "linked", "forgotten"],
            since="2026-06-01T00:00:00Z",
            limit=2,
        )

    assert fake_api.calls == [
        (
            "activity",
            {
                "scope": "product:ios",
                "kind": ["recalled", "linked", "forgotten"],
                "limit": 2,
                "since": "2026-06-01T00:00:00+00:00",
            },
        )
    ]
    lines = text_of(result).splitlines()
    assert lines[0] == (
        "- 2026-06-01T10:03:00Z recalled by bob: [m1] fact at product:ios: iOS ships on "
        "Fridays (query: 'when do we ship?')"
    )
    assert lines[1] == "- 2026-06-01T10:02:00Z linked by eve: [m2] updates [m1]"
    assert "cursor='a1.more'" in lines[2]
    assert result.structured_content["items"] == ENTRIES[:2]


async def test_gone_memories_say_so_and_bad_kinds_are_refused(
    connect: Connect, fake_api: FakeMemoryApi
) -> None:
    fake_api.activity_items = ENTRIES[2:]
    async with connect() as client:
        result = await call(client, "recent_activity")
        bad = await client.call_tool("recent_activity", {"kinds": ["shouted"]})
    assert text_of(result) == (
        "- 2026-06-01T10:01:00Z forgotten by ada: [m0] fact at product:ios (gone) (reason: wrong)"
    )
    assert bad.is_error and "kinds" in text_of(bad)
