"""Adversarial tenancy: random principals (role x home) against a fixed scope tree, through
every REST route and MCP tool that reads or writes. Nothing comes back outside what the
principal may read, and nothing is written where it may not write.

The oracle below is written from the rules in docs/access-control.md ("Scope tree"), not
from memhive_domain, so the suite checks the implementation against the spec. A population
is saved once per workspace (reads) and a scratch pool per workspace (writes); hypothesis
then draws principals, nodes, visibilities and operations against them.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack
from tests.integration.stack.test_mcp_tools import session

# Hypothesis draws in its own thread while the stack's event loop may still be working on
# the previous example (ingest folding recall hits, the bulletin service), and the
# OpenTelemetry SDK draws span ids from the global `random`: Hypothesis then sees the global
# state move during a draw and warns, although no strategy of ours uses it.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies"
    ":hypothesis.errors.HypothesisDeprecationWarning"
)

NODES = (
    "global",
    "product:p1",
    "product:p1/team:t1",
    "product:p1/team:t1/agent:a1",
    "product:p1/team:t1/agent:a2",
    "product:p1/team:t2",
    "product:p2",
    "product:p2/agent:a3",
    "team:r1",
    "agent:r2",
)
ROLES = ("admin", "member", "agent", "viewer")
PUBLIC_PRODUCTS = {"p1"}  # p2 has no product record: its memories inherit private
WORD = "harbour"
EXAMPLES = 40


# --- the oracle, from the spec -----------------------------------------------------------


def lineage(path: str) -> list[str]:
    segments = [] if path == "global" else path.split("/")
    return ["global"] + ["/".join(segments[: i + 1]) for i in range(len(segments))]


def is_local(path: str) -> bool:
    return path.rsplit("/", 1)[-1].startswith("agent:")


def reads(role: str, home: str, node: str) -> bool:
    if node in lineage(home):
        return True
    if home in lineage(node):  # below the home
        return role == "admin" or not is_local(node)
    return False


def writes(role: str, home: str, node: str) -> bool:
    if role == "viewer" or not reads(role, home, node):
        return False
    return node != "global" or role == "admin" or home == "global"


def inherited(node: str) -> str:
    if node == "global":
        return "public"
    product = node.split("/")[0].removeprefix("product:") if node.startswith("product:") else None
    if product in PUBLIC_PRODUCTS and not is_local(node):
        return "public"
    return "private"


@dataclass(frozen=True)
class Saved:
    id: str
    node: str
    visibility: str
    marker: str  # a word only this memory's body holds

    def seen_by(self, role: str, home: str) -> bool:
        return reads(role, home, self.node) and (role != "viewer" or self.visibility == "public")


# --- the world: one workspace to read, one to write ----------------------------------------


@dataclass
class World:
    stack: Stack
    workspace: str
    saved: dict[str, Saved] = field(default_factory=dict)
    clients: dict[tuple[str, str], httpx.AsyncClient] = field(default_factory=dict)
    exits: AsyncExitStack = field(default_factory=AsyncExitStack)

    async def client(self, role: str, home: str) -> httpx.AsyncClient:
        if (role, home) not in self.clients:
            user = f"{role}-{home.replace('/', '.').replace(':', '-')}"
            principal = Principal(self.workspace, user, Role(role), home)
            token = await self.stack.infra.tokens.issue(principal)
            client = await self.exits.enter_async_context(self.stack.client(token))
            self.clients[(role, home)] = client
        return self.clients[(role, home)]

    async def token(self, role: str, home: str) -> str:
        principal = Principal(self.workspace, f"mcp-{role}", Role(role), home)
        return await self.stack.infra.tokens.issue(principal)

    async def admin(self) -> httpx.AsyncClient:
        return await self.client("admin", "global")

    async def save(self, node: str, visibility: str | None, n: int) -> Saved:
        marker = f"m{uuid.uuid4().hex[:10]}"
        fields: dict[str, Any] = {
            "kind": "fact",
            "body": f"The {WORD} note {n} {marker} lives at {node}",
            "scope_path": node,
            "force": True,
        }
        if visibility is not None:
            fields["visibility"] = visibility
        response = await (await self.admin()).post("/v1/memories?wait=indexed", json=fields)
        assert response.status_code == 201, response.text
        memory = response.json()["memory"]
        assert memory["scope_path"] == node
        assert memory["visibility"] == (visibility or inherited(node))  # Hive's rule
        found = Saved(memory["id"], node, memory["visibility"], marker)
        self.saved[found.id] = found
        return found

    async def populate(self, visibilities: tuple[str | None, ...]) -> None:
        admin = await self.admin()
        for product in PUBLIC_PRODUCTS:
            answer = await admin.put(f"/v1/products/{product}", json={"visibility": "public"})
            assert answer.status_code == 200, answer.text
        counter = itertools.count()
        plan = [(node, v) for node in NODES for v in visibilities]
        for start in range(0, len(plan), 6):  # a few at a time: the pipeline batches them
            await asyncio.gather(*(self.save(n, v, next(counter)) for n, v in plan[start:][:6]))

    def expected(self, role: str, home: str, node: str | None = None) -> set[str]:
        return {
            s.id
            for s in self.saved.values()
            if s.seen_by(role, home) and (node is None or s.node == node)
        }

    def leaks(self, role: str, home: str, ids: list[str], text: str = "") -> list[str]:
        """Ids outside the principal's view, and markers of unseen memories in `text`."""
        unseen = [s for s in self.saved.values() if not s.seen_by(role, home)]
        found = [i for i in ids if i not in self.expected(role, home)]
        return found + [s.marker for s in unseen if s.marker in text or s.id in text]


def run(stack_loop: asyncio.AbstractEventLoop, coroutine: Awaitable[Any]) -> Any:
    """Hypothesis drives plain functions: run each example's coroutine on the stack's loop."""
    return asyncio.run_coroutine_threadsafe(coroutine, stack_loop).result(timeout=120)


async def in_thread(body: Callable[[], None]) -> None:
    await asyncio.to_thread(body)


EXAMPLE_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
principals = st.tuples(st.sampled_from(ROLES), st.sampled_from(NODES))
scopes = st.one_of(st.none(), st.sampled_from(NODES))


@pytest.fixture(scope="module")
async def reading(stack: Stack) -> Iterator[World]:
    world = World(stack, f"ws-tree-{uuid.uuid4().hex[:8]}")
    async with world.exits:
        await world.populate(("public", "private", None))
        await link_across_nodes(world)
        await keep_state_at_every_node(world)
        yield world


async def link_across_nodes(world: World) -> None:
    """Edges between nodes, so a memory's edge list names memories of other nodes."""
    admin = await world.admin()
    memories = sorted(world.saved.values(), key=lambda s: s.node)
    pairs = list(zip(memories, memories[5:] + memories[:5], strict=True))[::3]
    for src, dst in pairs:
        body = {"src_id": src.id, "dst_id": dst.id, "kind": "related_to"}
        response = await admin.post("/v1/edges", json=body)
        assert response.status_code in (200, 201), response.text


async def keep_state_at_every_node(world: World) -> None:
    admin = await world.admin()
    for node in NODES:
        answer = await admin.put(f"/v1/kv/{node}/probe", json={"value": {"at": node}})
        assert answer.status_code == 200, answer.text


# --- reads ----------------------------------------------------------------------------------


async def check_listing(world: World, role: str, home: str, scope: str | None) -> None:
    client = await world.client(role, home)
    params = {"limit": 100} | ({"scope_path": scope} if scope else {})
    response = await client.get("/v1/memories", params=params)
    if scope is not None and not reads(role, home, scope):
        assert response.status_code == 403, response.text
        return
    assert response.status_code == 200, response.text
    ids = [m["id"] for m in response.json()["items"]]
    assert not world.leaks(role, home, ids)
    assert set(ids) == world.expected(role, home, scope)  # and nothing readable is missing


async def check_recall(world: World, role: str, home: str, scope: str | None) -> None:
    client = await world.client(role, home)
    body = {"query": f"{WORD} note", "max_results": 20} | ({"scope_path": scope} if scope else {})
    response = await client.post("/v1/recall", json=body)
    if scope is not None and not reads(role, home, scope):
        assert response.status_code == 403, response.text
        return
    assert response.status_code == 200, response.text
    ids = [r["id"] for r in response.json()["results"]]
    assert not world.leaks(role, home, ids)
    assert set(ids) <= world.expected(role, home, scope)
    assert len(ids) == min(20, len(world.expected(role, home, scope)))  # pushed down: top-k full


async def check_one_memory(world: World, role: str, home: str, target: Saved) -> None:
    client = await world.client(role, home)
    seen = target.seen_by(role, home)
    for path in ("", "/edges", "/revisions"):
        response = await client.get(f"/v1/memories/{target.id}{path}")
        assert response.status_code == (200 if seen else 404), (path, response.text)
        if seen and path == "/edges":
            others = {e["dst_id"] for e in response.json()["edges"]} | {
                e["src_id"] for e in response.json()["edges"]
            }
            assert not world.leaks(role, home, sorted(others - {target.id}))


async def check_bulletin_and_context(world: World, role: str, home: str, node: str) -> None:
    client = await world.client(role, home)
    bulletin = await client.get(f"/v1/bulletins/{node}")
    context = await client.post(
        "/v1/context", json={"scope_path": node, "query": f"{WORD} note", "token_budget": 4000}
    )
    if not reads(role, home, node):
        assert (bulletin.status_code, context.status_code) == (403, 403), bulletin.text
        return
    assert bulletin.status_code == 200, bulletin.text
    got = bulletin.json()
    sources = [s["id"] for s in got["sources"]]
    assert not world.leaks(role, home, got["memory_ids"] + sources, got["text"])
    assert {world.saved[i].node for i in sources if i in world.saved} <= {node}
    assert context.status_code == 200, context.text
    pack = context.json()
    assert not world.leaks(role, home, [i["id"] for i in pack["items"]], pack["text"])


async def check_activity(world: World, role: str, home: str, scope: str | None) -> None:
    """Every page of the activity: each memory named is one the principal reads, no text of
    another leaks, and every memory of the population saved at the node shows up."""
    client = await world.client(role, home)
    params = {"limit": 100} | ({"scope": scope} if scope else {})
    items, cursor = [], None
    for _ in range(50):
        response = await client.get(
            "/v1/activity", params=params | ({"cursor": cursor} if cursor else {})
        )
        if scope is not None and not reads(role, home, scope):
            assert response.status_code == 403, response.text
            return
        assert response.status_code == 200, response.text
        items += response.json()["items"]
        if not (cursor := response.json()["next_cursor"]):
            break
    ids = [m["id"] for e in items for m in e["memories"]]
    ids += [i for e in items for edge in e["edges"] for i in (edge["src_id"], edge["dst_id"])]
    assert not world.leaks(role, home, ids, str(items))
    saved = {m["id"] for e in items if e["kind"] == "saved" for m in e["memories"]}
    assert saved == world.expected(role, home, scope)


async def check_state_read(world: World, role: str, home: str, node: str) -> None:
    """Key/value memory: read where the node is readable, by anyone but a viewer."""
    client = await world.client(role, home)
    got = await client.get(f"/v1/kv/{node}/probe")
    listed = await client.get("/v1/kv", params={"scope": node, "include_values": True})
    if role == "viewer" or not reads(role, home, node):
        assert (got.status_code, listed.status_code) == (403, 403), got.text
        return
    assert got.status_code == 200 and got.json()["value"] == {"at": node}, got.text
    assert [i["value"] for i in listed.json()["items"]] == [{"at": node}]


READS = {
    "list": lambda w, r, h, data: check_listing(w, r, h, data.draw(scopes)),
    "recall": lambda w, r, h, data: check_recall(w, r, h, data.draw(scopes)),
    "one": lambda w, r, h, data: check_one_memory(
        w, r, h, data.draw(st.sampled_from(sorted(w.saved.values(), key=lambda s: s.id)))
    ),
    "bulletin": lambda w, r, h, data: check_bulletin_and_context(
        w, r, h, data.draw(st.sampled_from(NODES))
    ),
    "activity": lambda w, r, h, data: check_activity(w, r, h, data.draw(scopes)),
    "state": lambda w, r, h, data: check_state_read(w, r, h, data.draw(st.sampled_from(NODES))),
}


async def test_rest_reads_never_leak(reading: World) -> None:
    loop = asyncio.get_running_loop()

    @EXAMPLE_SETTINGS
    @given(principal=principals, operation=st.sampled_from(sorted(READS)), data=st.data())
    def example(principal: tuple[str, str], operation: str, data: st.DataObject) -> None:
        role, home = principal
        run(loop, READS[operation](reading, role, home, data))

    await in_thread(example)


async def test_every_principal_lists_exactly_its_view(reading: World) -> None:
    """Not sampled: every role x home once, so no combination is left to chance."""
    for role, home in itertools.product(ROLES, NODES):
        await check_listing(reading, role, home, None)


async def test_every_principal_sees_exactly_its_activity(reading: World) -> None:
    """Recent activity, every role x home once: nothing outside the view, nothing missing."""
    for role, home in itertools.product(ROLES, NODES):
        await check_activity(reading, role, home, None)


async def test_mcp_tools_never_leak(reading: World, gateway_url: str) -> None:
    loop = asyncio.get_running_loop()

    async def tools(role: str, home: str, node: str, target: Saved) -> None:
        async with session(gateway_url, await reading.token(role, home)) as mcp:
            calls = {
                "recall_memory": {"query": f"{WORD} note", "max_results": 20},
                "list_memories": {"limit": 100},
                "get_memory": {"id": target.id},
                "get_memory_bulletin": {"scope_path": node},
                "get_context": {"scope_path": node, "token_budget": 4000},
                "recent_activity": {"limit": 100},
            }
            for tool, arguments in calls.items():
                result = await mcp.call_tool(tool, arguments)
                text = "\n".join(block.text for block in result.content)
                refused = (tool == "get_memory" and not target.seen_by(role, home)) or (
                    tool in ("get_memory_bulletin", "get_context") and not reads(role, home, node)
                )
                assert result.is_error == refused, (tool, text)
                if refused:
                    continue
                data = result.structured_content or {}
                listed = data.get("results", data.get("items", []))
                ids = [m["id"] for entry in listed for m in entry.get("memories", [entry])]
                ids += data.get("memory_ids", []) + ([data["id"]] if "id" in data else [])
                assert not reading.leaks(role, home, ids, text), (tool, text)
            await resources(mcp, role, home, node)

    async def resources(mcp, role: str, home: str, node: str) -> None:
        """The bulletin resource of the node: refused exactly where the REST route is."""
        try:
            read = await mcp.read_resource(f"memhive://bulletins/{node}")
        except MCPError as refused:
            assert not reads(role, home, node), refused.error.message
            return
        assert reads(role, home, node)
        assert not reading.leaks(role, home, [], read.contents[0].text)
        listed = " ".join(r.uri for r in (await mcp.list_resources()).resources)
        assert not reading.leaks(role, home, [], listed)

    @settings(EXAMPLE_SETTINGS, max_examples=EXAMPLES // 4)
    @given(principal=principals, node=st.sampled_from(NODES), data=st.data())
    def example(principal: tuple[str, str], node: str, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(sorted(reading.saved.values(), key=lambda s: s.id)))
        run(loop, tools(*principal, node, target))

    await in_thread(example)


# --- writes ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def writing(stack: Stack) -> Iterator[World]:
    world = World(stack, f"ws-tree-w-{uuid.uuid4().hex[:8]}")
    async with world.exits:
        await world.populate(("private",))
        yield world


async def still_there(world: World, target: Saved) -> bool:
    return (await (await world.admin()).get(f"/v1/memories/{target.id}")).status_code == 200


async def check_save(world: World, role: str, home: str, node: str, visibility: str | None):
    client = await world.client(role, home)
    marker = f"m{uuid.uuid4().hex[:10]}"
    fields = {"kind": "fact", "body": f"{WORD} attempt {marker}", "scope_path": node, "force": True}
    response = await client.post(
        "/v1/memories?wait=indexed",
        json=fields | ({"visibility": visibility} if visibility else {}),
    )
    if writes(role, home, node):
        assert response.status_code == 201, response.text
        memory = response.json()["memory"]
        assert (memory["scope_path"], memory["visibility"]) == (node, visibility or inherited(node))
        world.saved[memory["id"]] = Saved(memory["id"], node, memory["visibility"], marker)
        return
    assert response.status_code == 403, response.text
    listed = await (await world.admin()).get("/v1/memories", params={"scope_path": node})
    assert marker not in listed.text  # the refused save wrote nothing


async def check_forget(world: World, role: str, home: str, target: Saved) -> None:
    client = await world.client(role, home)
    live = await still_there(world, target)
    response = await client.delete(f"/v1/memories/{target.id}?wait=indexed")
    if role == "viewer":  # the role is checked before the memory is looked up
        assert response.status_code == 403, response.text
    elif not live or not target.seen_by(role, home):
        assert response.status_code == 404, response.text
    elif not writes(role, home, target.node):
        assert response.status_code == 403, response.text
    else:
        assert response.status_code == 200, response.text
        assert not await still_there(world, target)
        await world.save(target.node, "private", 0)  # keep the pool full
        return
    assert await still_there(world, target) == live  # the refused forget changed nothing


async def check_link(world: World, role: str, home: str, src: Saved, dst: Saved) -> None:
    client = await world.client(role, home)
    attempt = f"attempt {uuid.uuid4().hex}"  # names this attempt's edge, if one were written
    body = {"src_id": src.id, "dst_id": dst.id, "kind": "related_to", "rationale": attempt}
    live = await still_there(world, src) and await still_there(world, dst)
    response = await client.post("/v1/edges", json=body)
    if role == "viewer":
        assert response.status_code == 403, response.text
    elif src.id == dst.id:
        assert response.status_code == 422, response.text
    elif not (src.seen_by(role, home) and dst.seen_by(role, home)):
        assert response.status_code == 404, response.text
    elif not live:
        assert response.status_code == 422, response.text  # a forgotten end
    elif not writes(role, home, src.node):
        assert response.status_code == 403, response.text
    else:
        assert response.status_code in (200, 201), response.text
        return
    edges = await (await world.admin()).get(f"/v1/memories/{src.id}/edges")
    assert attempt not in edges.text  # the refused link wrote nothing


async def check_state_write(world: World, role: str, home: str, node: str) -> None:
    client = await world.client(role, home)
    key = f"w-{uuid.uuid4().hex[:10]}"
    written = await client.put(f"/v1/kv/{node}/{key}", json={"value": 1})
    assert written.status_code == (200 if writes(role, home, node) else 403), written.text
    stored = await (await world.admin()).get(f"/v1/kv/{node}/{key}")
    assert stored.status_code == (200 if writes(role, home, node) else 404)  # nothing written


def live_memory(world: World) -> st.SearchStrategy[Saved]:
    """The pool grows as examples save: draw a position, not an element, so the strategy
    itself stays the same from one example to the next (hypothesis replays them)."""
    return st.integers(0, 10_000).map(
        lambda i: sorted(world.saved.values(), key=lambda s: s.id)[i % len(world.saved)]
    )


async def test_rest_writes_only_where_allowed(writing: World) -> None:
    loop = asyncio.get_running_loop()

    @EXAMPLE_SETTINGS
    @given(
        principal=principals,
        operation=st.sampled_from(["save", "forget", "link", "state"]),
        data=st.data(),
    )
    def example(principal: tuple[str, str], operation: str, data: st.DataObject) -> None:
        role, home = principal
        if operation == "save":
            node = data.draw(st.sampled_from(NODES))
            visibility = data.draw(st.sampled_from([None, "public", "private"]))
            run(loop, check_save(writing, role, home, node, visibility))
        elif operation == "forget":
            run(loop, check_forget(writing, role, home, data.draw(live_memory(writing))))
        elif operation == "state":
            node = data.draw(st.sampled_from(NODES))
            run(loop, check_state_write(writing, role, home, node))
        else:
            src, dst = data.draw(live_memory(writing)), data.draw(live_memory(writing))
            run(loop, check_link(writing, role, home, src, dst))

    await in_thread(example)


async def test_mcp_write_tools_write_only_where_allowed(writing: World, gateway_url: str) -> None:
    loop = asyncio.get_running_loop()

    async def attempt(role: str, home: str, node: str, target: Saved, other: Saved) -> None:
        live = await still_there(writing, target)
        marker = f"m{uuid.uuid4().hex[:10]}"
        async with session(gateway_url, await writing.token(role, home)) as mcp:
            saved = await mcp.call_tool(
                "save_memory",
                {"kind": "fact", "body": f"{WORD} {marker}", "scope_path": node, "force": True},
            )
            linked = await mcp.call_tool(
                "link_memories", {"src_id": target.id, "dst_id": other.id, "kind": "related_to"}
            )
            forgot = await mcp.call_tool("forget_memory", {"id": target.id})
        assert saved.is_error != writes(role, home, node)
        if not saved.is_error:
            memory = saved.structured_content["memory"]
            writing.saved[memory["id"]] = Saved(memory["id"], node, memory["visibility"], marker)
        may_write = target.seen_by(role, home) and writes(role, home, target.node)
        may_link = may_write and other.seen_by(role, home) and other.id != target.id
        assert linked.is_error != (may_link and live and await still_there(writing, other))
        assert forgot.is_error != (may_write and live)
        assert await still_there(writing, target) == (live and forgot.is_error)
        if not forgot.is_error:
            await writing.save(target.node, "private", 0)  # keep the pool full

    @settings(EXAMPLE_SETTINGS, max_examples=EXAMPLES // 6)
    @given(principal=principals, node=st.sampled_from(NODES), data=st.data())
    def example(principal: tuple[str, str], node: str, data: st.DataObject) -> None:
        target, other = data.draw(live_memory(writing)), data.draw(live_memory(writing))
        run(loop, attempt(*principal, node, target, other))

    await in_thread(example)
