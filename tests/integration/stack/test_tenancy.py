"""Adversarial tenancy (issue 11): random scope trees (hypothesis), random principals of the
attacked workspace and of a neighbour with the same tree, through every REST route and MCP
tool that reads or writes memories, key/value memory, recent activity, products, tokens, the
audit log or dead letters (and the bulletin resource).
Nothing comes back outside what the principal may read (0 leaks), and nothing is written
where it may not write (0 unauthorised writes), against the oracle in tenancy_world.py.

Each hypothesis example is one tree: two fresh workspaces are populated with it (a few
seconds), then a sequence of drawn operations runs against them. Shrinking is off: it would
repopulate a world per step; a failure prints the tree and the draws instead.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from tests.integration.stack.conftest import Stack
from tests.integration.stack.tenancy_world import (
    MAIN,
    OTHER,
    ROLES,
    WORD,
    Saved,
    Tree,
    Who,
    World,
    in_batches,
    lineage,
    principals,
    reads,
    recalled_ids,
    scopes,
    trees,
    writes,
)
from tests.integration.stack.test_mcp_tools import session

pytestmark = [
    pytest.mark.timeout(900),
    # Hypothesis draws in this thread while the stack runs on the event loop's, where
    # OpenTelemetry makes span ids with the `random` module: hypothesis sees the global state
    # move during a draw and blames the strategy. Ours use no `random`.
    pytest.mark.filterwarnings(
        "ignore:Do not use the `random` module inside strategies"
        ":hypothesis.errors.HypothesisDeprecationWarning"
    ),
]

# Trees per test and operations per tree: bounded so `make test` stays well under its budget.
READ_TREES, READ_OPS = 4, 40
WRITE_TREES, WRITE_OPS = 4, 60
MCP_TREES, MCP_SESSIONS = 3, 4
TOKEN_TREES = 3
CANDIDATE_CONFIRMATIONS = 3  # PROMOTION_THRESHOLD: a procedure confirmed this often is listed

PER_TREE = settings(
    deadline=None,
    database=None,
    derandomize=True,  # the same trees on every run: CI stays reproducible
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)


def run(loop: asyncio.AbstractEventLoop, coroutine: Awaitable[Any]) -> Any:
    """Hypothesis drives plain functions: run each step's coroutine on the stack's loop."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=300)


def per_tree(stack: Stack, loop, populate: Callable[[World], Awaitable[None]]):
    """Runs `body(world, data)` for a freshly populated world of `tree`, then closes it."""

    def example(tree: Tree, data: st.DataObject, body: Callable[[World, st.DataObject], None]):
        note(f"tree: {tree}")
        world = World.of(stack, tree)
        try:
            run(loop, populate(world))
            body(world, data)
        finally:
            run(loop, world.exits.aclose())

    return example


def steps(world: World, data: st.DataObject, operations: dict, count: int):
    """(principal, operation) pairs: operations go round in turn, and roles too, shifted by
    one on each round of operations, so every pairing comes up; from a drawn start, homes
    and sides drawn. Even hypothesis' simplest example tries every operation and role."""
    names = sorted(operations)
    start = data.draw(st.integers(0, len(names) * len(ROLES)))
    for i in range(start, start + count):
        role = ROLES[(i + i // len(names)) % len(ROLES)]
        yield data.draw(principals(world.tree, role)), operations[names[i % len(names)]]


def target_for(world: World, who: Who, may=Saved.written_by) -> st.SearchStrategy[Saved]:
    """A memory the principal `may` act on, one it reads but may not act on (the boundary,
    where a wrong rule would show), or any memory of either workspace. The pool changes as
    examples write: positions are drawn, not elements."""

    def pick(kind: str, i: int) -> Saved:
        pool = world.pool()
        if kind == "may":
            pool = [s for s in pool if may(s, who)] or pool
        elif kind == "reads only":
            pool = [s for s in pool if s.seen_by(who) and not may(s, who)] or pool
        return pool[i % len(pool)]

    kinds = st.sampled_from(["may", "reads only", "any"])
    return st.builds(pick, kinds, st.integers(0, 10_000))


def node_for(world: World, who: Who) -> st.SearchStrategy[str]:
    """Half the time the principal's home or one of its ancestors (global among them: the
    boundary of Molecule's rule), else any node of the tree."""
    near = [n for n in world.tree.nodes if n in lineage(who.home)]
    return st.one_of(st.sampled_from(near), st.sampled_from(world.tree.nodes))


def a_procedure(saved: Saved, who: Who) -> bool:
    return saved.kind == "procedure" and saved.written_by(who)


def a_pair(world: World, who: Who) -> st.SearchStrategy[tuple[Saved, Saved]]:
    """Two memories, often of one node (what consolidation needs) and one the principal may
    write, sometimes the same memory twice."""

    def pick(first: Saved, j: int, same_node: bool) -> tuple[Saved, Saved]:
        alike = [s for s in world.pool() if (s.side, s.node) == (first.side, first.node)]
        others = alike if same_node else world.pool()
        return first, others[j % len(others)]

    return st.builds(pick, target_for(world, who), st.integers(0, 10_000), st.booleans())


# --- reads ----------------------------------------------------------------------------------


async def check_listing(world: World, who: Who, scope: str | None) -> None:
    client = await world.client(who)
    params = {"limit": 100} | ({"scope_path": scope} if scope else {})
    response = await client.get("/v1/memories", params=params)
    if scope is not None and not reads(who.role, who.home, scope):
        assert response.status_code == 403, response.text
        return
    assert response.status_code == 200, response.text
    ids = [m["id"] for m in response.json()["items"]]
    assert not world.leaks(who, ids, response.text)
    assert set(ids) == world.expected(who, scope)  # and nothing readable is missing


async def check_recall(world: World, who: Who, scope: str | None, *, exact: bool) -> None:
    """exact: no edge makes one memory stand in for another, so the top-k is full."""
    client = await world.client(who)
    body = {"query": f"{WORD} note", "max_results": 20} | ({"scope_path": scope} if scope else {})
    response = await client.post("/v1/recall", json=body)
    if scope is not None and not reads(who.role, who.home, scope):
        assert response.status_code == 403, response.text
        return
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert not world.leaks(who, recalled_ids(results), response.text)
    if exact:  # pushed down, not filtered after: the top-k is full
        assert len(results) == min(20, len(world.expected(who, scope)))


async def check_one_memory(world: World, who: Who, target: Saved) -> None:
    client = await world.client(who)
    seen = target.seen_by(who)
    for path in ("", "/edges", "/revisions", "/flags", "/skill"):
        response = await client.get(f"/v1/memories/{target.id}{path}")
        if not seen:
            assert response.status_code == 404, (path, response.text)
            continue
        ok = 422 if path == "/skill" and target.kind != "procedure" else 200
        assert response.status_code == ok, (path, response.text)
        if path == "/edges":
            ends = {e[end] for e in response.json()["edges"] for end in ("src_id", "dst_id")}
            assert not world.leaks(who, sorted(ends - {target.id}))
        elif path == "/skill":
            assert not world.leaks(who, [], response.text)


async def check_bulletin_and_context(world: World, who: Who, node: str) -> None:
    client = await world.client(who)
    bulletin = await client.get(f"/v1/bulletins/{node}")
    context = await client.post(
        "/v1/context", json={"scope_path": node, "query": f"{WORD} note", "token_budget": 4000}
    )
    if not reads(who.role, who.home, node):
        assert (bulletin.status_code, context.status_code) == (403, 403), bulletin.text
        return
    assert bulletin.status_code == 200, bulletin.text
    got = bulletin.json()
    sources = [s["id"] for s in got["sources"]]
    assert not world.leaks(who, got["memory_ids"] + sources, got["text"])
    assert {world.saved[i].node for i in sources if i in world.saved} <= {node}
    assert context.status_code == 200, context.text
    pack = context.json()
    assert not world.leaks(who, [i["id"] for i in pack["items"]], pack["text"])


async def check_candidates(world: World, who: Who, scope: str | None) -> None:
    client = await world.client(who)
    listed, cursor = [], None
    for _ in range(20):  # pages of procedures, filtered: follow the cursor to the end
        params = {"limit": 100} | ({"scope_path": scope} if scope else {})
        response = await client.get(
            "/v1/skills/candidates", params=params | ({"cursor": cursor} if cursor else {})
        )
        if scope is not None and not reads(who.role, who.home, scope):
            assert response.status_code == 403, response.text
            return
        assert response.status_code == 200, response.text
        listed += [m["id"] for m in response.json()["items"]]
        if not (cursor := response.json()["next_cursor"]):
            break
    assert not world.leaks(who, listed)
    assert set(listed) == world.expected(who, scope) & world.candidates


async def check_products(world: World, who: Who) -> None:
    client = await world.client(who)
    shown = {
        product
        for (side, product), visibility in world.records.items()
        if side == who.side
        and reads(who.role, who.home, f"product:{product}")
        and (who.role != "viewer" or visibility == "public")
    }
    listed = await client.get("/v1/products")
    assert listed.status_code == 200, listed.text
    assert {p["product_id"] for p in listed.json()["items"]} == shown
    for product, _ in world.tree.products:
        one = await client.get(f"/v1/products/{product}")
        assert one.status_code == (200 if product in shown else 404), one.text


async def check_admin_reads(world: World, who: Who) -> None:
    """Tokens and the audit log for admins, dead letters for people: each only of the
    caller's workspace (users of this world are named `<workspace>.<role>.<home>`). The
    audit log is the workspace's, whatever the admin's home: it names memory ids, not
    bodies."""
    client = await world.client(who)
    workspace = world.workspaces[who.side]
    tokens = await client.get("/v1/admin/tokens")
    audit = await client.get("/v1/admin/audit", params={"limit": 500})
    letters = await client.get("/v1/admin/dead-letters")
    admin, person = who.role == "admin", who.role in ("admin", "member")
    assert (tokens.status_code, audit.status_code) == ((200, 200) if admin else (403, 403))
    assert letters.status_code == (200 if person else 403), letters.text
    if admin:
        assert {t["workspace_id"] for t in tokens.json()["items"]} == {workspace}
        users = {e["user"] for e in audit.json()["items"]}
        assert users and all(u.startswith(f"{workspace}.") for u in users), users
        # The log is the workspace's (not a node's): what must not show is the neighbour.
        targets = {t for e in audit.json()["items"] for t in e["target"].split("->")}
        assert not {world.saved[t].side for t in targets if t in world.saved} - {who.side}
    if person:
        assert all(d["subject"].endswith(f".{workspace}") for d in letters.json()["items"])


async def check_activity(world: World, who: Who, scope: str | None) -> None:
    """Every page of the activity: each memory named is one the principal reads, no text of
    another leaks, and every memory of the population saved at the node shows up."""
    client = await world.client(who)
    params = {"limit": 100} | ({"scope": scope} if scope else {})
    items, cursor = [], None
    for _ in range(50):
        response = await client.get(
            "/v1/activity", params=params | ({"cursor": cursor} if cursor else {})
        )
        if scope is not None and not reads(who.role, who.home, scope):
            assert response.status_code == 403, response.text
            return
        assert response.status_code == 200, response.text
        items += response.json()["items"]
        if not (cursor := response.json()["next_cursor"]):
            break
    assert not world.leaks(who, activity_ids(items), str(items))
    saved = {m["id"] for e in items if e["kind"] == "saved" for m in e["memories"]}
    assert saved == world.expected(who, scope)


def activity_ids(entries: list[dict]) -> list[str]:
    """Every memory id activity entries name: their memories and both ends of their edges."""
    ids = [m["id"] for e in entries for m in e["memories"]]
    return ids + [
        i for e in entries for edge in e["edges"] for i in (edge["src_id"], edge["dst_id"])
    ]


async def check_state_read(world: World, who: Who, node: str) -> None:
    """Key/value memory: read where the node is readable, by anyone but a viewer, and only
    the principal's own workspace's entry."""
    client = await world.client(who)
    got = await client.get(f"/v1/kv/{node}/probe")
    listed = await client.get("/v1/kv", params={"scope": node, "include_values": True})
    if who.role == "viewer" or not reads(who.role, who.home, node):
        assert (got.status_code, listed.status_code) == (403, 403), got.text
        return
    probe = {"at": node, "side": who.side}
    assert got.status_code == 200 and got.json()["value"] == probe, got.text
    assert listed.status_code == 200, listed.text
    assert [i["value"] for i in listed.json()["items"]] == [probe]


READS: dict[str, Callable[[World, Who, st.DataObject], Awaitable[None]]] = {
    "list": lambda w, who, data: check_listing(w, who, data.draw(scopes(w.tree))),
    "recall": lambda w, who, data: check_recall(w, who, data.draw(scopes(w.tree)), exact=True),
    "one": lambda w, who, data: check_one_memory(
        w, who, data.draw(target_for(w, who, Saved.seen_by))
    ),
    "bulletin": lambda w, who, data: check_bulletin_and_context(
        w, who, data.draw(st.sampled_from(w.tree.nodes))
    ),
    "candidates": lambda w, who, data: check_candidates(w, who, data.draw(scopes(w.tree))),
    "products": lambda w, who, data: check_products(w, who),
    "admin": lambda w, who, data: check_admin_reads(w, who),
    "activity": lambda w, who, data: check_activity(w, who, data.draw(scopes(w.tree))),
    "state": lambda w, who, data: check_state_read(
        w, who, data.draw(st.sampled_from(w.tree.nodes))
    ),
}


async def reading_world(world: World) -> None:
    """The tree's memories, edges across nodes (so edge lists name other nodes' memories),
    procedures confirmed into skill candidates, and a key/value entry at every node of
    both workspaces."""
    await world.populate()
    admin = await world.admin()
    pool = sorted((s for s in world.pool() if s.side == MAIN), key=lambda s: s.node)
    shift = max(1, len(pool) // 3)
    pairs = list(zip(pool, pool[shift:] + pool[:shift], strict=True))[::2]
    for src, dst in pairs:
        body = {"src_id": src.id, "dst_id": dst.id, "kind": "related_to"}
        response = await admin.post("/v1/edges", json=body)
        assert response.status_code in (200, 201), response.text
    procedures = [s for s in pool if s.kind == "procedure"][::2]
    for _ in range(CANDIDATE_CONFIRMATIONS):  # one after the other per memory
        confirmed = await in_batches(
            [admin.post(f"/v1/memories/{p.id}/confirmations") for p in procedures]
        )
        assert all(c.status_code == 200 for c in confirmed), [c.text for c in confirmed]
    world.candidates = {p.id for p in procedures}
    await keep_state_at_every_node(world)


async def keep_state_at_every_node(world: World) -> None:
    puts = [
        (await world.admin(side)).put(
            f"/v1/kv/{node}/probe", json={"value": {"at": node, "side": side}}
        )
        for side in (MAIN, OTHER)
        for node in world.tree.nodes
    ]
    answers = await in_batches(puts)
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]


async def test_rest_reads_never_leak(stack: Stack) -> None:
    loop = asyncio.get_running_loop()
    example = per_tree(stack, loop, reading_world)

    def operations(world: World, data: st.DataObject) -> None:
        every_principal_lists_exactly_its_view(world, loop)
        every_principal_sees_exactly_its_activity(world, loop)
        for who, operation in steps(world, data, READS, READ_OPS):
            run(loop, operation(world, who, data))

    @settings(PER_TREE, max_examples=READ_TREES)
    @given(tree=trees(), data=st.data())
    def each_tree(tree: Tree, data: st.DataObject) -> None:
        example(tree, data, operations)

    await asyncio.to_thread(each_tree)


def every_principal_lists_exactly_its_view(world: World, loop) -> None:
    """Not sampled: every role x home of the tree once, so no combination is left to chance
    (and every role of the neighbour at its root)."""
    everyone = [Who(MAIN, role, home) for role, home in itertools.product(ROLES, world.tree.nodes)]
    everyone += [Who(OTHER, role, "global") for role in ROLES]
    run(loop, in_batches([check_listing(world, who, None) for who in everyone]))


def every_principal_sees_exactly_its_activity(world: World, loop) -> None:
    """Recent activity, every role x home of the tree once: nothing outside the view,
    nothing missing."""
    everyone = [Who(MAIN, role, home) for role, home in itertools.product(ROLES, world.tree.nodes)]
    everyone += [Who(OTHER, role, "global") for role in ROLES]
    run(loop, in_batches([check_activity(world, who, None) for who in everyone]))


# --- writes ---------------------------------------------------------------------------------
# Each check computes the status the spec gives, makes the request, and then reads the record
# as its workspace's admin: changed exactly when the request was allowed.


def change_status(who: Who, target: Saved, live: bool) -> int:
    """PATCH, flags, confirmations, forget: the role first, then whether the memory exists
    for the caller (404 hides what it may not read), then whether its node is writable (a
    flag lowers the memory's trust for every reader, a confirmation raises it: changes like
    the others)."""
    if who.role == "viewer":
        return 403
    if not (live and target.seen_by(who)):
        return 404
    if not writes(who.role, who.home, target.node):
        return 403
    return 200


async def check_save(world: World, who: Who, node: str, visibility: str | None) -> None:
    client = await world.client(who)
    marker = f"m{uuid.uuid4().hex[:10]}"
    fields = {"kind": "fact", "body": f"{WORD} attempt {marker}", "scope_path": node, "force": True}
    response = await client.post(
        "/v1/memories?wait=indexed",
        json=fields | ({"visibility": visibility} if visibility else {}),
    )
    if writes(who.role, who.home, node):
        assert response.status_code == 201, response.text
        memory = response.json()["memory"]
        expected = visibility or world.inherited(who.side, node)
        assert (memory["scope_path"], memory["visibility"]) == (node, expected)
        world.keep(who.side, memory, marker)
        return
    assert response.status_code == 403, response.text
    assert not await world.written_at(who.side, node, marker)  # the refused save wrote nothing


async def check_forget(world: World, who: Who, target: Saved) -> None:
    live = await world.live(target)
    status = change_status(who, target, live)
    response = await (await world.client(who)).delete(f"/v1/memories/{target.id}?wait=indexed")
    assert response.status_code == status, response.text
    assert await world.live(target) == (live and status != 200)
    if status == 200:
        target.forgotten = True
        await world.save(target.side, target.node, "private", target.kind)  # keep the pool full


async def check_link(world: World, who: Who, src: Saved, dst: Saved, kind: str) -> None:
    client = await world.client(who)
    attempt = f"attempt {uuid.uuid4().hex}"  # names this attempt's edge, if one were written
    body = {"src_id": src.id, "dst_id": dst.id, "kind": kind, "rationale": attempt}
    live = await world.live(src) and await world.live(dst)
    response = await client.post("/v1/edges", json=body)
    if who.role == "viewer":
        assert response.status_code == 403, response.text
    elif src.id == dst.id:
        assert response.status_code == 422, response.text
    elif not (src.seen_by(who) and dst.seen_by(who)):
        assert response.status_code == 404, response.text
    elif not live:
        assert response.status_code in (404, 422), response.text  # a forgotten end
    elif not all(writes(who.role, who.home, end.node) for end in written_ends(src, dst, kind)):
        assert response.status_code == 403, response.text  # rights follow the target
    else:
        assert response.status_code in (200, 201), response.text
        if kind != "related_to":
            world.edges.append((src.id, dst.id, kind))
        return
    edges = await (await world.admin(src.side)).get(f"/v1/memories/{src.id}/edges")
    assert attempt not in edges.text  # the refused link wrote nothing


def written_ends(src: Saved, dst: Saved, kind: str) -> list[Saved]:
    """src holds the edge; `updates` demotes dst, `contradicts` whichever is older."""
    return {"related_to": [src], "updates": [src, dst], "contradicts": [src, dst]}[kind]


async def check_supersede(world: World, who: Who, node: str, target: Saved) -> None:
    """A save at `node` superseding `target`: the writer must write both nodes; then every
    principal of the workspace either sees the successor in its place, or, when it cannot
    see the successor, keeps the target as current (issue 24)."""
    live = await world.live(target)
    marker = f"m{uuid.uuid4().hex[:10]}"
    body = {"kind": "fact", "body": f"{WORD} successor {marker}", "scope_path": node}
    response = await (await world.client(who)).post(
        "/v1/memories?wait=indexed", json=body | {"supersedes": [target.id]}
    )
    if not writes(who.role, who.home, node):
        status = 403
    elif not (live and target.seen_by(who)):
        status = 404
    else:
        status = 201 if writes(who.role, who.home, target.node) else 403
    assert response.status_code == status, response.text
    if status != 201:
        assert not await world.written_at(who.side, node, marker)
        return
    successor = world.keep(who.side, response.json()["memory"], marker)
    alone = not any(target.id in edge[:2] for edge in world.edges)  # no chain, no cycle
    world.edges.append((successor.id, target.id, "updates"))
    if alone:
        checks = [keeps_unless_it_sees(world, r, target, successor) for r in everyone(world)]
        await in_batches(checks)


def everyone(world: World) -> list[Who]:
    return [Who(MAIN, role, home) for role, home in itertools.product(ROLES, world.tree.nodes)]


async def keeps_unless_it_sees(world: World, reader: Who, target: Saved, successor: Saved) -> None:
    """The reader gets the successor in the target's place exactly when it sees it."""
    if not target.seen_by(reader):
        return
    replaced = successor.seen_by(reader)
    client = await world.client(reader)
    for history in (False, True):
        response = await client.post(
            "/v1/recall",
            json={"query": f"{WORD} {target.marker}", "max_results": 20}
            | {"include_superseded": history},
        )
        assert response.status_code == 200, response.text
        results = response.json()["results"]
        assert not world.leaks(reader, recalled_ids(results), response.text)
        current = [r["id"] for r in results if not r.get("superseded_by")]
        assert (target.id in current) != replaced, (reader, target, results)


async def check_patch(world: World, who: Who, target: Saved, field: str) -> None:
    live = await world.live(target)
    before = await world.as_admin(target) if live else None
    status = change_status(who, target, live)
    tag = f"t{uuid.uuid4().hex[:8]}"
    flipped = {"public": "private", "private": "public"}[target.visibility]
    change = {"tags": [tag]} if field == "tags" else {"visibility": flipped}
    response = await (await world.client(who)).patch(
        f"/v1/memories/{target.id}?wait=indexed", json=change
    )
    assert response.status_code == status, response.text
    if not live:
        return
    after = await world.as_admin(target)
    if status == 200:
        assert after[field] == change[field], after
        target.visibility = after["visibility"]  # the oracle follows the change
    else:
        assert after[field] == before[field], after  # the refused change changed nothing


async def check_flag(world: World, who: Who, target: Saved) -> None:
    live = await world.live(target)
    status = change_status(who, target, live)
    reason = f"attempt {uuid.uuid4().hex}"
    response = await (await world.client(who)).post(
        f"/v1/memories/{target.id}/flags", json={"kind": "unverified", "reason": reason}
    )
    assert response.status_code == (201 if status == 200 else status), response.text
    if live:
        flags = [f["reason"] for f in (await world.as_admin(target))["flags"]]
        assert (reason in flags) == (status == 200)
        await clear_flags_as_admin(world, target)  # at most 32 flags: keep room for more


async def clear_flags_as_admin(world: World, target: Saved) -> None:
    cleared = await (await world.admin(target.side)).delete(f"/v1/memories/{target.id}/flags")
    assert cleared.status_code == 200, cleared.text


async def check_clear_flags(world: World, who: Who, target: Saved) -> None:
    live = await world.live(target)
    seed = f"seed {uuid.uuid4().hex}"
    if live:  # something to clear
        admin = await world.admin(target.side)
        flagged = await admin.post(
            f"/v1/memories/{target.id}/flags", json={"kind": "unverified", "reason": seed}
        )
        assert flagged.status_code == 201, flagged.text
    status = change_status(who, target, live)
    response = await (await world.client(who)).delete(f"/v1/memories/{target.id}/flags")
    assert response.status_code == status, response.text
    if live:
        flags = [f["reason"] for f in (await world.as_admin(target))["flags"]]
        assert (seed in flags) == (status != 200)
        await clear_flags_as_admin(world, target)


async def check_confirm(world: World, who: Who, target: Saved) -> None:
    live = await world.live(target)
    before = (await world.as_admin(target))["confirmations"] if live else 0
    status = change_status(who, target, live)
    response = await (await world.client(who)).post(f"/v1/memories/{target.id}/confirmations")
    assert response.status_code == status, response.text
    if live:
        after = (await world.as_admin(target))["confirmations"]
        assert after == before + (status == 200)


def consolidate_status(who: Who, pair: tuple[Saved, Saved], live: bool) -> int:
    a, b = pair
    if who.role == "viewer":
        return 403
    if a.id == b.id:
        return 422  # two ids are needed
    if not (live and a.seen_by(who) and b.seen_by(who)):
        return 404
    if not (writes(who.role, who.home, a.node) and writes(who.role, who.home, b.node)):
        return 403
    return 422 if a.node != b.node else 201


async def check_consolidate(world: World, who: Who, pair: tuple[Saved, Saved]) -> None:
    a, b = pair
    live = await world.live(a) and await world.live(b)
    status = consolidate_status(who, pair, live)
    marker = f"m{uuid.uuid4().hex[:10]}"
    request = {"ids": [a.id, b.id], "body": f"{WORD} merged {marker}", "kind": "fact"}
    response = await (await world.client(who)).post(
        "/v1/memories/consolidate?wait=indexed", json=request
    )
    assert response.status_code == status, response.text
    if status == 201:
        memory = response.json()["memory"]
        private = "private" in (a.visibility, b.visibility)
        assert (memory["scope_path"], memory["visibility"]) == (
            a.node, "private" if private else "public"
        )  # fmt: skip
        world.keep(who.side, memory, marker)
        return
    for side, node in itertools.product((MAIN, OTHER), {a.node, b.node}):
        assert not await world.written_at(side, node, marker)  # nothing merged where refused


def crystallize_status(who: Who, target: Saved, live: bool) -> int:
    """Only procedures become skills (422), checked before the node is (403)."""
    if who.role == "viewer":
        return 403
    if not (live and target.seen_by(who)):
        return 404
    if target.kind != "procedure":
        return 422
    return 201 if writes(who.role, who.home, target.node) else 403


async def check_crystallize(world: World, who: Who, target: Saved) -> None:
    live = await world.live(target)
    before = (await world.as_admin(target))["promoted_at"] if live else None
    status = crystallize_status(who, target, live)
    response = await (await world.client(who)).post(
        f"/v1/memories/{target.id}/crystallize?wait=indexed", json={}
    )
    assert response.status_code == status, response.text
    if live:
        after = (await world.as_admin(target))["promoted_at"]
        assert (after is not None) if status == 201 else (after == before)


async def check_define_product(world: World, who: Who, product: str, visibility: str) -> None:
    allowed = who.role in ("admin", "member") and reads(who.role, who.home, f"product:{product}")
    before = world.records.get((who.side, product))
    response = await (await world.client(who)).put(
        f"/v1/products/{product}", json={"visibility": visibility}
    )
    assert response.status_code == (200 if allowed else 403), response.text
    if allowed:
        world.records[(who.side, product)] = visibility
    got = await (await world.admin(who.side)).get(f"/v1/products/{product}")
    now = world.records.get((who.side, product))
    assert (
        (got.json().get("visibility") if got.status_code == 200 else None)
        == now
        == (visibility if allowed else before)
    )


async def check_token_admin(world: World, who: Who) -> None:
    """Only the workspace's admins issue and revoke its tokens, each at or below its home;
    a neighbour's admin, or one homed below the token, does not even learn that a token id
    exists (404)."""
    client = await world.client(who)
    created = await client.post(
        "/v1/admin/tokens", json={"user": "made-here", "role": "viewer", "home": who.home}
    )
    assert created.status_code == (201 if who.role == "admin" else 403), created.text
    if created.status_code == 201:
        assert created.json()["workspace_id"] == world.workspaces[who.side]
        revoked = await client.delete(f"/v1/admin/tokens/{created.json()['id']}")
        assert revoked.status_code == 200, revoked.text
    victim = await (await world.admin(MAIN)).post(
        "/v1/admin/tokens", json={"user": "victim", "role": "viewer"}
    )
    assert victim.status_code == 201, victim.text
    attempt = await client.delete(f"/v1/admin/tokens/{victim.json()['id']}")
    own = who.side == MAIN and who.role == "admin" and who.home == "global"  # the victim's
    assert attempt.status_code == (200 if own else 404 if who.role == "admin" else 403)
    async with world.stack.client(victim.json()["token"]) as holder:
        for _ in range(100):  # a revocation reaches the gateway within a second
            answer = (await holder.get("/v1/memories")).status_code
            if answer == 401 or not own:
                break
            await asyncio.sleep(0.02)
    assert answer == (401 if own else 200)


async def check_state_write(world: World, who: Who, node: str) -> None:
    """A key/value write lands where the principal writes (never a viewer), in its own
    workspace only; a refused write stores nothing."""
    key = f"w-{uuid.uuid4().hex[:10]}"
    written = await (await world.client(who)).put(f"/v1/kv/{node}/{key}", json={"value": 1})
    allowed = writes(who.role, who.home, node)
    assert written.status_code == (200 if allowed else 403), written.text
    for side in (MAIN, OTHER):
        stored = await (await world.admin(side)).get(f"/v1/kv/{node}/{key}")
        assert stored.status_code == (200 if allowed and side == who.side else 404), stored.text


WRITES: dict[str, Callable[[World, Who, st.DataObject], Awaitable[None]]] = {
    "save": lambda w, who, data: check_save(
        w,
        who,
        data.draw(node_for(w, who)),
        data.draw(st.sampled_from([None, "public", "private"])),
    ),
    "forget": lambda w, who, data: check_forget(w, who, data.draw(target_for(w, who))),
    "link": lambda w, who, data: check_link(
        w,
        who,
        *data.draw(a_pair(w, who)),
        data.draw(st.sampled_from(["related_to", "updates", "contradicts"])),
    ),
    "supersede": lambda w, who, data: check_supersede(
        w, who, data.draw(node_for(w, who)), data.draw(target_for(w, who, Saved.seen_by))
    ),
    "patch": lambda w, who, data: check_patch(
        w, who, data.draw(target_for(w, who)), data.draw(st.sampled_from(["tags", "visibility"]))
    ),
    "flag": lambda w, who, data: check_flag(w, who, data.draw(target_for(w, who, Saved.seen_by))),
    "clear_flags": lambda w, who, data: check_clear_flags(w, who, data.draw(target_for(w, who))),
    "confirm": lambda w, who, data: check_confirm(
        w, who, data.draw(target_for(w, who, Saved.seen_by))
    ),
    "consolidate": lambda w, who, data: check_consolidate(w, who, data.draw(a_pair(w, who))),
    "crystallize": lambda w, who, data: check_crystallize(
        w, who, data.draw(target_for(w, who, a_procedure))
    ),
    "product": lambda w, who, data: check_define_product(
        w,
        who,
        data.draw(st.sampled_from([p for p, _ in w.tree.products])),
        data.draw(st.sampled_from(["public", "private"])),
    ),
    "tokens": lambda w, who, data: check_token_admin(w, who),
    "state": lambda w, who, data: check_state_write(w, who, data.draw(node_for(w, who))),
    # Reads after writes: visibility changes, supersession and merges must not leak either.
    "list": lambda w, who, data: check_listing(w, who, data.draw(scopes(w.tree))),
    "recall": lambda w, who, data: check_recall(w, who, data.draw(scopes(w.tree)), exact=False),
}


async def test_rest_writes_only_where_allowed(stack: Stack) -> None:
    loop = asyncio.get_running_loop()
    example = per_tree(stack, loop, World.populate)

    def operations(world: World, data: st.DataObject) -> None:
        for who, operation in steps(world, data, WRITES, WRITE_OPS):
            run(loop, operation(world, who, data))

    @settings(PER_TREE, max_examples=WRITE_TREES)
    @given(tree=trees(), data=st.data())
    def each_tree(tree: Tree, data: st.DataObject) -> None:
        example(tree, data, operations)

    await asyncio.to_thread(each_tree)


# --- token administration: every caller against every token home ----------------------


@dataclass(frozen=True)
class Issued:
    id: str
    home: str
    role: str


async def issue_at_every_home(world: World) -> list[Issued]:
    """As the root admin: a viewer token at every node, and a root-homed admin (the issue's
    victim: a subtree admin revoked it)."""
    admin = await world.admin()
    wanted = [(home, "viewer") for home in world.tree.nodes] + [("global", "admin")]
    answers = await in_batches(
        [admin.post("/v1/admin/tokens", json={"user": "held", "role": r, "home": h})
         for h, r in wanted]
    )  # fmt: skip
    assert all(a.status_code == 201 for a in answers), [a.text for a in answers]
    return [Issued(a.json()["id"], h, r) for a, (h, r) in zip(answers, wanted, strict=True)]


def grants(who: Who, home: str) -> bool:
    """An admin, homed at or above the token's home, in its own workspace (the role asked is
    at most admin, so never above the caller's)."""
    return who.role == "admin" and who.home in lineage(home)


def administers(who: Who, home: str) -> bool:
    """...and the token is of the attacked workspace, where the tokens were issued."""
    return who.side == MAIN and grants(who, home)


async def check_token_rights(world: World, who: Who, issued: list[Issued]) -> None:
    """List, rotate, issue and revoke, against every token home (issue 24 item 1)."""
    client = await world.client(who)
    listed = await client.get("/v1/admin/tokens")
    if who.role != "admin":
        minted = await client.post("/v1/admin/tokens", json={"user": "x", "home": who.home})
        rotated = await client.post(f"/v1/admin/tokens/{issued[0].id}/rotate", json={})
        codes = (listed.status_code, minted.status_code, rotated.status_code)
        assert codes == (403, 403, 403), (who, listed.text)
        return
    assert listed.status_code == 200, listed.text
    items = listed.json()["items"]
    mine = world.workspaces[who.side]
    assert all(t["workspace_id"] == mine and who.home in lineage(t["home"]) for t in items)
    assert {t.id for t in issued} & {t["id"] for t in items} == {
        t.id for t in issued if administers(who, t.home)
    }
    for token in issued:
        rotated = await client.post(f"/v1/admin/tokens/{token.id}/rotate", json={})
        assert rotated.status_code == (200 if administers(who, token.home) else 404), rotated.text
    for home in world.tree.nodes:  # never a workspace-wide (or sibling) admin from a subtree
        minted = await client.post(
            "/v1/admin/tokens", json={"user": "minted", "role": "admin", "home": home}
        )
        assert minted.status_code == (201 if grants(who, home) else 403), minted.text
        if minted.status_code == 201:
            revoked = await client.delete(f"/v1/admin/tokens/{minted.json()['id']}")
            assert revoked.status_code == 200, revoked.text


async def test_token_administration_follows_the_tree(stack: Stack) -> None:
    """Every role at every home of the tree (and the neighbour's admin) against a token at
    every home: exhaustive, not sampled. The root-homed admin survives every attempt."""
    loop = asyncio.get_running_loop()
    example = per_tree(stack, loop, lambda world: asyncio.sleep(0))

    def operations(world: World, data: st.DataObject) -> None:
        issued = run(loop, issue_at_every_home(world))
        callers = [*everyone(world), Who(OTHER, "admin", "global")]
        run(loop, in_batches([check_token_rights(world, who, issued) for who in callers]))
        victim = next(t for t in issued if t.role == "admin")
        listed = run(loop, (run(loop, world.admin())).get("/v1/admin/tokens"))
        assert victim.id in {t["id"] for t in listed.json()["items"]}

    @settings(PER_TREE, max_examples=TOKEN_TREES)
    @given(tree=trees(), data=st.data())
    def each_tree(tree: Tree, data: st.DataObject) -> None:
        example(tree, data, operations)

    await asyncio.to_thread(each_tree)


# --- MCP ------------------------------------------------------------------------------------
# The tools call the REST routes in process, so the oracle is the same; what is checked here
# is that no tool widens what its route allows, and that no tool's text leaks.


def text_of(result, arguments: dict) -> str:
    """The tool's text, less the ids the caller gave it (a refusal may name them back)."""
    text = "\n".join(block.text for block in result.content)
    for value in arguments.values():
        for named in value if isinstance(value, list) else [value]:
            text = text.replace(str(named), "<given>")
    return text


async def mcp_reads(world: World, url: str, who: Who, node: str, scope: str, target: Saved):
    readable = reads(who.role, who.home, scope)
    at_node = reads(who.role, who.home, node)
    calls = [
        ("recall_memory", True, {"query": f"{WORD} note", "max_results": 20}),
        ("recall_memory", readable, {"query": f"{WORD} note", "scope_path": scope}),
        ("list_memories", True, {"limit": 100}),
        ("list_memories", readable, {"limit": 100, "scope_path": scope}),
        ("get_memory", target.seen_by(who), {"id": target.id}),
        ("get_memory_bulletin", at_node, {"scope_path": node}),
        ("get_context", at_node, {"scope_path": node, "token_budget": 4000}),
        ("recent_activity", True, {"limit": 100}),
        ("recent_activity", readable, {"limit": 100, "scope_path": scope}),
        ("get_state", at_node and who.role != "viewer", {"scope": node, "key": "probe"}),
    ]
    async with session(url, await world.token(who)) as mcp:
        for tool, allowed, arguments in calls:
            result = await mcp.call_tool(tool, arguments)
            text = text_of(result, arguments)
            assert result.is_error != allowed, (tool, arguments, text)
            data = result.structured_content or {}
            items = data.get("items", [])
            if tool == "recent_activity":
                ids = activity_ids(items)
            else:
                ids = recalled_ids(data.get("results", [])) + [m["id"] for m in items]
            ids += data.get("memory_ids", []) + ([data["id"]] if "id" in data else [])
            assert not world.leaks(who, ids, text), (tool, text)
            if tool == "list_memories" and allowed:
                assert set(ids) == world.expected(who, arguments.get("scope_path"))
            if tool == "get_state" and allowed:
                assert data["value"] == {"at": node, "side": who.side}, data
        await bulletin_resource(world, mcp, who, node)


async def bulletin_resource(world: World, mcp, who: Who, node: str) -> None:
    """The bulletin resource of the node: refused exactly where the REST route is; neither it
    nor the caller's resource list leaks."""
    try:
        read = await mcp.read_resource(f"memhive://bulletins/{node}")
    except MCPError as refused:
        assert not reads(who.role, who.home, node), refused.error.message
    else:
        assert reads(who.role, who.home, node)
        assert not world.leaks(who, [], read.contents[0].text)
    listed = " ".join(r.uri for r in (await mcp.list_resources()).resources)
    assert not world.leaks(who, [], listed)


async def test_mcp_tools_never_leak(stack: Stack, gateway_url: str) -> None:
    loop = asyncio.get_running_loop()
    example = per_tree(stack, loop, reading_world)

    def operations(world: World, data: st.DataObject) -> None:
        for _ in range(MCP_SESSIONS):
            who = data.draw(principals(world.tree))
            node, scope = (data.draw(st.sampled_from(world.tree.nodes)) for _ in range(2))
            target = data.draw(target_for(world, who, Saved.seen_by))
            run(loop, mcp_reads(world, gateway_url, who, node, scope, target))

    @settings(PER_TREE, max_examples=MCP_TREES)
    @given(tree=trees(), data=st.data())
    def each_tree(tree: Tree, data: st.DataObject) -> None:
        example(tree, data, operations)

    await asyncio.to_thread(each_tree)


async def mcp_writes(
    world: World, url: str, who: Who, node: str, target: Saved, pair: tuple[Saved, Saved]
) -> None:
    """Every write tool once, forget last: each refused exactly when the spec refuses its
    route, and the record (read as its admin) changed exactly when it was allowed."""
    live, pair_live = await world.live(target), all([await world.live(m) for m in pair])
    before = await world.as_admin(target) if live else None
    change = change_status(who, target, live) == 200  # a flag and a confirmation too
    promote = crystallize_status(who, target, live) == 201
    saved, merged, tag = (
        f"m{uuid.uuid4().hex[:10]}",
        f"m{uuid.uuid4().hex[:10]}",
        f"t{uuid.uuid4().hex[:8]}",
    )
    async with session(url, await world.token(who)) as mcp:

        async def call(tool: str, allowed: bool, arguments: dict):
            result = await mcp.call_tool(tool, arguments)
            text = text_of(result, arguments)
            assert result.is_error != allowed, (tool, arguments, text)
            assert not world.leaks(who, [], text), (tool, text)
            return result

        body = {"kind": "fact", "body": f"{WORD} {saved}", "scope_path": node, "force": True}
        made = await call("save_memory", writes(who.role, who.home, node), body)
        await call("update_memory", change, {"id": target.id, "tags": [tag]})
        flag = {"id": target.id, "kind": "unverified", "reason": f"attempt {saved}"}
        await call("flag_memory", change, flag)
        await call("confirm_memory", change, {"id": target.id})
        await call("crystallize_memory", promote, {"id": target.id})
        if live:
            await record_changed_as_allowed(world, target, before, tag, saved, change, promote)
            await clear_flags_as_admin(world, target)
        ids = [pair[0].id, pair[1].id]
        merge = {"ids": ids, "body": f"{WORD} merged {merged}", "kind": "fact"}
        joined = await call(
            "consolidate_memories", consolidate_status(who, pair, pair_live) == 201, merge
        )
        await call("forget_memory", change, {"id": target.id})
    for result, marker, nodes in ((made, saved, {node}), (joined, merged, {m.node for m in pair})):
        if not result.is_error:
            world.keep(who.side, result.structured_content["memory"], marker)
        else:  # the refused tool wrote nothing, in either workspace
            for side, at in itertools.product((MAIN, OTHER), nodes):
                assert not await world.written_at(side, at, marker)
    assert await world.live(target) == (live and not change)
    if live and change:
        target.forgotten = True
        await world.save(target.side, target.node, "private", target.kind)  # keep the pool full


async def record_changed_as_allowed(
    world: World, target: Saved, before: dict, tag: str, marker: str, change, promote
) -> None:
    after = await world.as_admin(target)
    assert (after["tags"] == [tag]) == change, after["tags"]
    assert any(f["reason"] == f"attempt {marker}" for f in after["flags"]) == change
    assert after["confirmations"] == before["confirmations"] + change
    if promote:
        assert after["promoted_at"] is not None
    else:
        assert after["promoted_at"] == before["promoted_at"]


async def test_mcp_write_tools_write_only_where_allowed(stack: Stack, gateway_url: str) -> None:
    loop = asyncio.get_running_loop()
    example = per_tree(stack, loop, World.populate)

    def operations(world: World, data: st.DataObject) -> None:
        for _ in range(MCP_SESSIONS):
            who = data.draw(principals(world.tree))
            node = data.draw(node_for(world, who))
            target, pair = data.draw(target_for(world, who)), data.draw(a_pair(world, who))
            run(loop, mcp_writes(world, gateway_url, who, node, target, pair))

    @settings(PER_TREE, max_examples=MCP_TREES)
    @given(tree=trees(), data=st.data())
    def each_tree(tree: Tree, data: st.DataObject) -> None:
        example(tree, data, operations)

    await asyncio.to_thread(each_tree)
