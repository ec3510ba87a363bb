"""Import and export through the gateway, on the real stack: memhive's JSONL round trip
(export -> a wiped workspace -> import -> the same memories, edges and recall), Markdown
memory files and mem0's get_all JSON brought in through the save's rules, and the refusals."""

from __future__ import annotations

import io
import json
import uuid
import zipfile

import httpx
import pytest
from memhive_domain.exchange.memhive_jsonl import moved_id
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, recall_ids, save

QUERIES = [
    "which CI do we use?",
    "how do we release?",
    "what does Dana prefer?",
    "when did the team move offices?",
]


async def admin_client(stack: Stack, workspace: str) -> httpx.AsyncClient:
    token = await stack.infra.tokens.issue(Principal(workspace, "root", Role.ADMIN))
    return stack.client(token)


async def export_lines(client: httpx.AsyncClient, **params) -> list[dict]:
    response = await client.get("/v1/export", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


async def imported(client: httpx.AsyncClient, text: str, **params) -> list[dict]:
    response = await client.post("/v1/import", content=text.encode(), params=params)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def by_type(lines: list[dict], kind: str) -> list[dict]:
    return [line.get(kind, line) for line in lines if line.get("type") == kind]


async def fill(client: httpx.AsyncClient) -> dict[str, str]:
    ids = {}
    ids["jenkins"] = (
        await save(client, kind="fact", body="The build server runs Jenkins", tags=["ci"])
    )["id"]
    ids["actions"] = (
        await save(
            client,
            kind="fact",
            body="The build server moved to GitHub Actions",
            tags=["ci"],
            supersedes=[ids["jenkins"]],
            visibility="public",
        )
    )["id"]
    ids["release"] = (
        await save(
            client,
            kind="procedure",
            body="1. Tag the commit\n2. Run the release job",
            scope_path="product:shop/team:web",
            importance=0.9,
            pinned=True,
        )
    )["id"]
    ids["dana"] = (
        await save(
            client, kind="preference", body="Dana prefers tabs over spaces", source_ref="chat-1:4"
        )
    )["id"]
    ids["move"] = (
        await save(
            client, kind="event", body="The team moved offices", occurred_at="2024-03-01T00:00:00Z"
        )
    )["id"]
    link = {
        "src_id": ids["dana"],
        "dst_id": ids["move"],
        "kind": "related_to",
        "rationale": "same week",
    }
    assert (await client.post("/v1/edges", json=link)).status_code in (200, 201)
    flagged = {"kind": "unverified", "reason": "nobody checked"}
    assert (await client.post(f"/v1/memories/{ids['dana']}/flags", json=flagged)).status_code == 201
    confirmed = await client.post(f"/v1/memories/{ids['release']}/confirmations")
    assert confirmed.status_code == 200
    patched = await client.patch(
        f"/v1/memories/{ids['move']}?wait=indexed", json={"tags": ["office"]}
    )
    assert patched.status_code == 200, patched.text
    return ids


async def history(client: httpx.AsyncClient, memory_id: str) -> list[tuple]:
    response = await client.get(f"/v1/memories/{memory_id}/revisions")
    assert response.status_code == 200, response.text
    return [
        (r["revision"], r["updated_at"], r["body"], r["tags"], r["change"])
        for r in response.json()["revisions"]
    ]


def records(lines: list[dict]) -> dict[str, dict]:
    return {m["id"]: m for m in by_type(lines, "memory")}


async def test_an_export_imported_into_a_wiped_workspace_is_the_same(stack: Stack) -> None:
    """Another workspace of the same installation stands in for a wiped one: the lanes know
    memories by id across workspaces, so ids move (to the same derived id every time); the
    e2e test restores into a really wiped installation with the ids kept."""
    source, target = f"ws-{uuid.uuid4().hex[:12]}", f"ws-{uuid.uuid4().hex[:12]}"
    async with (
        await admin_client(stack, source) as before,
        await admin_client(stack, target) as after,
    ):
        ids = await fill(before)
        exported = await export_lines(before)
        assert exported[0]["memhive_export"] == 1 and exported[0]["workspace_id"] == source
        jsonl = "".join(json.dumps(line) + "\n" for line in exported)

        report = await imported(after, jsonl, format="memhive")
        assert report[0] == {"type": "plan", "total": 7, "dry_run": False, "notes": []}
        items = by_type(report, "item")
        assert [i["status"] for i in items] == ["restored"] * 5 + ["linked"] * 2
        assert report[-1]["created"] == 7 and report[-1]["skipped"] == 0

        again = await export_lines(after)
        new = {old: moved_id(target, old) for old in ids.values()}
        assert records(again) == {new[i]: r | {"id": new[i]} for i, r in records(exported).items()}
        assert by_type(again, "edge") == [
            e | {"src_id": new[e["src_id"]], "dst_id": new[e["dst_id"]]}
            for e in by_type(exported, "edge")
        ]
        for query in QUERIES:
            hits = await recall_ids(before, query)
            assert await recall_ids(after, query) == [new[i] for i in hits], query
        for old in ids.values():  # the revision history came back too
            assert await history(after, new[old]) == await history(before, old), old

        second = await imported(after, jsonl, format="memhive")
        assert second[-1]["created"] == 0 and second[-1]["skipped"] == 7  # idempotent
        assert {i["reason"].split(":")[0] for i in by_type(second, "item")} == {"already here"}


async def test_the_export_carries_the_revision_history(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        saved = await save(client, kind="fact", body="The nightly backup runs at 02:00")
        changed = await client.patch(
            f"/v1/memories/{saved['id']}?wait=indexed",
            json={"body": "The nightly backup runs at 03:00", "force": True},
        )
        assert changed.status_code == 200
        lines = await export_lines(client)
    history = [(r["memory"]["revision"], r["memory"]["body"]) for r in by_type(lines, "revision")]
    assert history == [
        (1, "The nightly backup runs at 02:00"),
        (2, "The nightly backup runs at 03:00"),
    ]


async def test_a_dry_run_writes_nothing_and_says_what_would_happen(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        report = await imported(client, CLAUDE_MD, path="CLAUDE.md", dry_run="true")
        listed = (await client.get("/v1/memories")).json()["items"]
    items = by_type(report, "item")
    assert listed == [] and items and all(i["dry_run"] for i in items)
    assert {i["status"] for i in items} == {"created"}
    assert report[-1] == {
        "type": "summary",
        "created": len(items),
        "skipped": 0,
        "reasons": {},
        "dry_run": True,
    }


async def test_a_bad_line_imports_nothing_and_is_named(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        good = await save(client, kind="fact", body="Kept line one")
        lines = await export_lines(client)
        target = f"ws-{uuid.uuid4().hex[:12]}"
    bad = dict(lines[1])
    bad["memory"] = dict(bad["memory"], kind="rumour", id=str(uuid.uuid4()))
    text = "".join(json.dumps(line) + "\n" for line in [lines[0], lines[1], bad, "nope"])
    async with await admin_client(stack, target) as client:
        response = await client.post("/v1/import?format=memhive", content=text.encode())
        listed = (await client.get("/v1/memories")).json()["items"]
    assert response.status_code == 422, response.text
    fields = [p["field"] for p in response.json()["problems"]]
    assert fields == ["line 3", "line 4"]
    assert "kind" in response.json()["problems"][0]["message"]
    assert listed == [] and good["id"]


CLAUDE_MD = """# CLAUDE.md

## Code style

- Always use tabs for indentation
- Prefer small functions

## Release steps

1. Tag the commit
2. Run the release job
   ```
   make release
   ```

## Architecture decisions

We decided to use NATS JetStream as the log because it keeps every event.
"""


async def test_claude_md_becomes_memories_and_a_changed_line_supersedes(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        first = by_type(await imported(client, CLAUDE_MD, path="CLAUDE.md"), "item")
        again = await imported(client, CLAUDE_MD, path="CLAUDE.md")
        changed = CLAUDE_MD.replace("Prefer small functions", "Prefer small, pure functions")
        third = by_type(await imported(client, changed, path="CLAUDE.md"), "item")
        listed = {m["id"]: m for m in (await client.get("/v1/memories?limit=100")).json()["items"]}
        hits = await recall_ids(client, "what function size do we prefer?")
    assert [(i["line"], i["kind"], i["source_ref"]) for i in first] == [
        (5, "preference", "CLAUDE.md#code-style:1"),
        (6, "preference", "CLAUDE.md#code-style:2"),
        (10, "procedure", "CLAUDE.md#release-steps:1"),
        (11, "procedure", "CLAUDE.md#release-steps:2"),
        (18, "decision", "CLAUDE.md#architecture-decisions:1"),
    ]
    step = listed[first[3]["memory_id"]]
    assert step["body"] == "Release steps: Run the release job\n```\nmake release\n```"
    assert step["tags"] == ["claude-md"] and step["source"] == "note"
    assert again[-1]["created"] == 0 and again[-1]["skipped"] == 5
    new = next(i for i in third if i["status"] == "created")
    assert new["supersedes"] == [first[1]["memory_id"]] and new["line"] == 6
    assert hits[0] == new["memory_id"] and first[1]["memory_id"] not in hits


SIBLINGS_MD = """# Testing

- Always run the unit tests with pytest before pushing a branch
- Always run the unit tests with pytest before you push a branch
- Deploys go out on Tuesdays
"""


async def test_near_duplicate_lines_of_one_file_are_siblings_not_successors(stack: Stack) -> None:
    """Two look-alike lines of one file lived side by side there: both are imported, neither
    supersedes the other (the dry run says the same), and when one of them changes later,
    the new version supersedes only its own earlier version."""
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        planned = by_type(
            await imported(client, SIBLINGS_MD, path="CLAUDE.md", dry_run="true"), "item"
        )
        first = by_type(await imported(client, SIBLINGS_MD, path="CLAUDE.md"), "item")
        changed = SIBLINGS_MD.replace("before you push", "before you push any")
        third = by_type(await imported(client, changed, path="CLAUDE.md"), "item")
    for report in (planned, first):
        assert [(i["line"], i["status"], i["supersedes"]) for i in report] == [
            (3, "created", []),
            (4, "created", []),
            (5, "created", []),
        ]
    assert [(i["line"], i["status"], i["supersedes"]) for i in third] == [
        (3, "skipped", []),
        (4, "created", [first[1]["memory_id"]]),
        (5, "skipped", []),
    ]


async def test_look_alike_memories_of_one_mem0_file_are_all_imported(stack: Stack) -> None:
    entries = [
        {"id": "m-1", "memory": "Prefers vegetarian food at team dinners"},
        {"id": "m-2", "memory": "Prefers vegetarian food at the team dinners"},
    ]
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        items = by_type(await imported(client, json.dumps(entries), format="mem0"), "item")
    assert [(i["status"], i["reason"]) for i in items] == [("created", ""), ("created", "")]


async def test_a_memory_the_file_still_holds_is_not_superseded(stack: Stack) -> None:
    """mem0 moved a text from one memory to another: what the last import made of the second
    is still in the file (as the first), so the second's new text supersedes nothing."""
    entries = [{"id": "m-1", "memory": "Uses Postgres 16"}, {"id": "m-2", "memory": "Hosts on AWS"}]
    moved = [{"id": "m-1", "memory": "Hosts on AWS"}, {"id": "m-2", "memory": "Deploys weekly"}]
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        first = by_type(await imported(client, json.dumps(entries), format="mem0"), "item")
        then = by_type(await imported(client, json.dumps(moved), format="mem0"), "item")
    assert [(i["status"], i["supersedes"]) for i in then] == [("skipped", []), ("created", [])]
    assert then[0]["reason"] == f"already here: memory {first[1]['memory_id']}"


MEM0_JSON = {
    "results": [
        {
            "id": "3f1c2a8e-0000-4000-8000-000000000001",
            "memory": "Prefers vegetarian food",
            "hash": "abc",
            "metadata": {"categories": ["food", "Preferences"], "source": "chat"},
            "created_at": "2026-01-02T03:04:05-08:00",
            "updated_at": None,
            "user_id": "alice",
        },
        {
            "id": "3f1c2a8e-0000-4000-8000-000000000002",
            "memory": "Works on the checkout service",
            "hash": "def",
            "created_at": "2026-01-03T03:04:05-08:00",
            "updated_at": None,
            "user_id": "alice",
            "agent_id": "planner",
            "run_id": "Run-7",
        },
    ]
}


async def test_mem0_get_all_lands_on_the_scope_tree_with_its_metadata(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        text = json.dumps(MEM0_JSON, indent=2)
        report = await imported(client, text, format="mem0", scope_path="product:shop")
        items = by_type(report, "item")
        kept = await client.get(
            "/v1/kv/product:shop/team:alice/mem0.3f1c2a8e-0000-4000-8000-000000000001"
        )
        memory = (await client.get(f"/v1/memories/{items[1]['memory_id']}")).json()
        again = await imported(client, text, format="mem0", scope_path="product:shop")
        changed = json.loads(text)
        changed["results"][0]["memory"] = "Eats fish on Fridays"  # mem0 updated it since
        third = by_type(
            await imported(client, json.dumps(changed), format="mem0", scope_path="product:shop"),
            "item",
        )
    assert [(i["line"], i["status"], i["kind"], i["scope_path"]) for i in items] == [
        (4, "created", "preference", "product:shop/team:alice"),
        (19, "created", "fact", "product:shop/team:alice/agent:planner"),
    ]
    assert memory["source_ref"] == "mem0:3f1c2a8e-0000-4000-8000-000000000002"
    assert memory["tags"] == ["mem0", "run:run-7"]
    assert kept.status_code == 200, kept.text
    assert kept.json()["value"]["metadata"] == {
        "categories": ["food", "Preferences"],
        "source": "chat",
    }
    assert again[-1]["created"] == 0
    assert [(i["status"], i["supersedes"]) for i in third] == [
        ("created", [items[0]["memory_id"]]),
        ("skipped", []),
    ]


async def test_markdown_export_is_one_file_per_node(stack: Stack) -> None:
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        await fill(client)
        response = await client.get("/v1/export", params={"format": "markdown"})
    assert response.status_code == 200
    files = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(files.namelist()) == ["global.md", "product-shop__team-web.md"]
    text = files.read("global.md").decode()
    assert text.startswith("# Memories at `global`")
    assert "**superseded by**" in text and "## Preferences" in text


@pytest.mark.parametrize("role", [Role.AGENT, Role.VIEWER])
async def test_agents_and_viewers_may_neither_import_nor_export(stack: Stack, role: Role) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    token = await stack.infra.tokens.issue(Principal(workspace, "bot", role))
    async with stack.client(token) as client:
        out = await client.get("/v1/export")
        into = await client.post("/v1/import?path=CLAUDE.md", content=CLAUDE_MD.encode())
    assert (out.status_code, into.status_code) == (403, 403)


async def test_an_item_outside_the_callers_tree_refuses_the_whole_file(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    token = await stack.infra.tokens.issue(
        Principal(workspace, "ann", Role.MEMBER, home="product:shop")
    )
    async with stack.client(token) as client:
        response = await client.post(
            "/v1/import?path=CLAUDE.md&scope_path=product:other", content=CLAUDE_MD.encode()
        )
        listed = (await client.get("/v1/memories")).json()["items"]
    assert response.status_code == 403 and "line 5" in response.json()["detail"]
    assert listed == []


@pytest.mark.parametrize("form", ["jsonl", "markdown"])
async def test_a_bad_node_is_a_422_before_the_export_streams(stack: Stack, form: str) -> None:
    """Found by the API fuzzing: the JSONL export checked its node only once streaming, when
    the answer could no longer change its status."""
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        response = await client.get(
            "/v1/export", params={"format": form, "scope_path": "team:x/product:y"}
        )
    assert response.status_code == 422
    assert [p["field"] for p in response.json()["problems"]] == ["scope_path"]


async def test_an_import_takes_a_file_larger_than_any_other_request(stack: Stack) -> None:
    header = json.dumps({"memhive_export": 1, "workspace_id": "w"}) + "\n"
    big = (header + " \n" * 150_000).encode()  # ~300 KiB: more than the 128 KiB of a save
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as client:
        imported = await client.post("/v1/import?format=memhive", content=big)
        saved = await client.post("/v1/memories", content=big)
    assert imported.status_code == 200, imported.text
    assert json.loads(imported.text.splitlines()[-1])["type"] == "summary"
    assert saved.status_code == 413


CLAUDE_DIR = "/home/alice/.claude/projects/-home-alice-src-app/memory"
CLAUDE_FILES = {
    "deploy-days.md": """---
name: deploy-days
description: Deploys go out on Tuesdays and Thursdays only
metadata:
  type: project
---
Friday deploys stopped after the March outage.
**Why:** the outage took a Friday night to roll back.
**How to apply:** plan releases for Tuesday.
""",
    "user-role.md": """---
name: user-role
description: Alice is the iOS lead and reviews every release
metadata:
  type: user
---
She prefers short summaries.
""",
    "MEMORY.md": "- [Deploy days](deploy-days.md) — when releases go out\n",
}


async def test_claude_codes_auto_memory_is_a_memory_a_file_its_type_kept(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with await admin_client(stack, workspace) as client:
        report = {
            name: await imported(client, text, path=f"{CLAUDE_DIR}/{name}")  # format by path
            for name, text in CLAUDE_FILES.items()
        }
        items = {name: by_type(lines, "item") for name, lines in report.items()}
        deploys, role = items["deploy-days.md"][0], items["user-role.md"][0]
        memories = {
            i["memory_id"]: (await client.get(f"/v1/memories/{i['memory_id']}")).json()
            for i in (deploys, role)
        }
        again = await imported(
            client, CLAUDE_FILES["deploy-days.md"], path=f"{CLAUDE_DIR}/deploy-days.md"
        )
        rewritten = "---\nname: deploy-days\nmetadata:\n  type: project\n---\nReleases: Wednesdays."
        third = await imported(client, rewritten, path=f"{CLAUDE_DIR}/deploy-days.md")
        # Another user's file of the same name is another memory, superseding nothing.
        bobs = await imported(
            client,
            rewritten + " Bob's.",
            path="/home/bob/x/memory/deploy-days.md",
            format="claude-memory",
        )

    assert items["MEMORY.md"] == []  # the index: its memories are the files
    memory = memories[deploys["memory_id"]]
    assert memory["body"] == (
        "Deploys go out on Tuesdays and Thursdays only\n\nFriday deploys stopped after the "
        "March outage.\n**Why:** the outage took a Friday night to roll back.\n"
        "**How to apply:** plan releases for Tuesday."
    )
    assert memory["tags"] == ["claude-memory", "claude-memory:project"]
    assert memory["source_ref"] == "claude-memory/deploy-days" and memory["source"] == "agent"
    about_alice = memories[role["memory_id"]]
    assert (about_alice["kind"], about_alice["tags"]) == (
        "identity",
        ["claude-memory", "claude-memory:user"],
    )
    assert again[-1]["created"] == 0  # unchanged: nothing new
    # Rewritten whole since (nothing alike left): it still supersedes what the file made.
    [new] = by_type(third, "item")
    assert new["status"] == "created" and new["supersedes"] == [deploys["memory_id"]]
    [bob] = by_type(bobs, "item")
    assert bob["status"] == "created" and bob["supersedes"] == []
