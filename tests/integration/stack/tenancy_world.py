"""The adversarial tenancy suite's world: random scope trees (hypothesis), the oracle that says
what a principal may read and write, and a populated pair of workspaces to attack.

The oracle is written from the rules in docs/access-control.md ("Scope tree"), not from
memhive_domain, so the suite checks the implementation against the spec.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import strategies as st
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack

ROLES = ("admin", "member", "agent", "viewer")
WORD = "harbour"  # in every body: a recall for it may return any memory
MAIN, OTHER = "main", "other"  # the attacked workspace and a neighbour with the same tree


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


def product_of(node: str) -> str | None:
    first = node.split("/")[0]
    return first.removeprefix("product:") if first.startswith("product:") else None


@dataclass(frozen=True)
class Who:
    """A principal: which of the two workspaces, its role and its home node."""

    side: str  # MAIN or OTHER
    role: str
    home: str


@dataclass
class Saved:
    side: str
    id: str
    node: str
    visibility: str
    marker: str  # a word only this memory's body holds
    kind: str = "fact"
    forgotten: bool = False  # nobody reads it any more: showing it is a leak too

    def seen_by(self, who: Who) -> bool:
        return (
            not self.forgotten
            and who.side == self.side
            and reads(who.role, who.home, self.node)
            and (who.role != "viewer" or self.visibility == "public")
        )

    def written_by(self, who: Who) -> bool:
        return self.seen_by(who) and writes(who.role, who.home, self.node)


# --- random trees --------------------------------------------------------------------------


@dataclass(frozen=True)
class Tree:
    """Nodes of one scope tree (root first), the product records (visibility, or None for a
    product without a record) and, per node, the visibilities and kinds of its memories."""

    nodes: tuple[str, ...]
    products: tuple[tuple[str, str | None], ...]
    memories: tuple[tuple[str, str | None, str], ...]  # (node, visibility or None, kind)


_ids = st.text(alphabet="abcde", min_size=1, max_size=2)  # few letters: ids repeat across levels
_record = st.sampled_from([None, "public", "private"])


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    """global -> products -> teams -> agents, agents also right under a product or the root,
    and teams under the root; an agent id may repeat in two teams (siblings, not one agent)."""
    nodes, products = ["global"], []
    for index, product in enumerate(draw(st.lists(_ids, min_size=1, max_size=2, unique=True))):
        base = f"product:{product}"
        nodes.append(base)
        products.append((product, draw(_record)))
        least = 1 if index == 0 else 0  # always a team with an agent: Molecule's TEAM, LOCAL
        for team in draw(st.lists(_ids, min_size=least, max_size=2, unique=True)):
            nodes.append(f"{base}/team:{team}")
            agents = draw(st.lists(_ids, min_size=least, max_size=2, unique=True))
            nodes += [f"{base}/team:{team}/agent:{a}" for a in agents]
            least = 0
        nodes += [f"{base}/agent:{a}" for a in draw(_agents(1))]
    for team in draw(st.lists(_ids, max_size=1, unique=True)):
        nodes.append(f"team:{team}")
        nodes += [f"team:{team}/agent:{a}" for a in draw(_agents(1))]
    nodes += [f"agent:{a}" for a in draw(_agents(1))]
    memories = [
        (node, visibility, draw(st.sampled_from(["fact", "procedure"])))
        for node in nodes
        for visibility in draw(st.lists(_record, min_size=1, max_size=2))
    ]
    return Tree(tuple(nodes), tuple(products), tuple(memories))


def _agents(at_most: int) -> st.SearchStrategy[list[str]]:
    return st.lists(_ids, max_size=at_most, unique=True)


def principals(tree: Tree, role: str | None = None) -> st.SearchStrategy[Who]:
    """Mostly the attacked workspace's, sometimes its neighbour's (same paths, other data)."""
    return st.builds(
        Who,
        st.sampled_from([MAIN, MAIN, MAIN, OTHER]),
        st.just(role) if role else st.sampled_from(ROLES),
        st.sampled_from(tree.nodes),
    )


def scopes(tree: Tree) -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(tree.nodes))


# --- the world: two workspaces with the same tree ------------------------------------------


@dataclass
class World:
    stack: Stack
    tree: Tree
    workspaces: dict[str, str]  # side -> workspace id
    records: dict[tuple[str, str], str] = field(default_factory=dict)  # (side, product) -> vis
    saved: dict[str, Saved] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # updates/contradicts
    candidates: set[str] = field(default_factory=set)  # procedures confirmed into candidates
    clients: dict[Who, httpx.AsyncClient] = field(default_factory=dict)
    exits: AsyncExitStack = field(default_factory=AsyncExitStack)

    @classmethod
    def of(cls, stack: Stack, tree: Tree) -> World:
        tag = uuid.uuid4().hex[:8]
        return cls(stack, tree, {MAIN: f"ws-ten-{tag}", OTHER: f"ws-ten-{tag}-o"})

    def user_of(self, who: Who) -> str:
        home = who.home.replace("/", ".").replace(":", "-")
        return f"{self.workspaces[who.side]}.{who.role}.{home}"

    async def token(self, who: Who) -> str:
        principal = Principal(
            self.workspaces[who.side], self.user_of(who), Role(who.role), who.home
        )
        return await self.stack.infra.tokens.issue(principal)

    async def client(self, who: Who) -> httpx.AsyncClient:
        if who not in self.clients:
            client = self.stack.client(await self.token(who))
            self.clients[who] = await self.exits.enter_async_context(client)
        return self.clients[who]

    async def admin(self, side: str = MAIN) -> httpx.AsyncClient:
        return await self.client(Who(side, "admin", "global"))

    def inherited(self, side: str, node: str) -> str:
        """Hive's rule: global public; a product (or a team in it) its record's; else private."""
        if node == "global":
            return "public"
        product = product_of(node)
        if product is None or is_local(node):
            return "private"
        return self.records.get((side, product), "private")

    async def define_product(self, side: str, product: str, visibility: str) -> None:
        answer = await (await self.admin(side)).put(
            f"/v1/products/{product}", json={"visibility": visibility}
        )
        assert answer.status_code == 200, answer.text
        self.records[(side, product)] = visibility

    async def save(self, side: str, node: str, visibility: str | None, kind: str = "fact") -> Saved:
        marker = f"m{uuid.uuid4().hex[:10]}"
        fields: dict[str, Any] = {
            "kind": kind,
            "body": f"The {WORD} {kind} {marker} lives at {node}",
            "scope_path": node,
            "force": True,
        } | ({"visibility": visibility} if visibility else {})
        response = await (await self.admin(side)).post("/v1/memories?wait=indexed", json=fields)
        assert response.status_code == 201, response.text
        memory = response.json()["memory"]
        assert memory["scope_path"] == node
        assert memory["visibility"] == (visibility or self.inherited(side, node))  # Hive's rule
        return self.keep(side, memory, marker)

    def keep(self, side: str, memory: dict, marker: str) -> Saved:
        found = Saved(side, memory["id"], memory["scope_path"], memory["visibility"], marker,
                      memory["kind"])  # fmt: skip
        self.saved[found.id] = found
        return found

    async def populate(self) -> None:
        """The tree's memories in the attacked workspace; in its neighbour, public memories at
        the same paths (a leak across workspaces would show even to a viewer)."""
        for product, visibility in self.tree.products:
            if visibility is not None:
                await self.define_product(MAIN, product, visibility)
        plan = [(MAIN, node, v, kind) for node, v, kind in self.tree.memories]
        plan += [(OTHER, node, "public", "procedure") for node in self.tree.nodes[:4]]
        await in_batches([self.save(*step) for step in plan])

    async def live(self, target: Saved) -> bool:
        admin = await self.admin(target.side)
        return (await admin.get(f"/v1/memories/{target.id}")).status_code == 200

    async def as_admin(self, target: Saved) -> dict:
        """The record as its workspace's root admin reads it (the ground truth)."""
        answer = await (await self.admin(target.side)).get(f"/v1/memories/{target.id}")
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def written_at(self, side: str, node: str, marker: str) -> bool:
        """Does any live memory at `node` of the workspace hold `marker` (its admin lists)?"""
        admin = await self.admin(side)
        listed = await admin.get("/v1/memories", params={"scope_path": node, "limit": 100})
        assert listed.status_code == 200, listed.text
        return marker in listed.text

    def expected(self, who: Who, node: str | None = None) -> set[str]:
        return {
            s.id for s in self.saved.values() if s.seen_by(who) and (node is None or s.node == node)
        }

    def leaks(self, who: Who, ids: list[str], text: str = "") -> list[str]:
        """Ids outside the principal's view, and markers or ids of unseen memories in `text`."""
        visible = self.expected(who)
        unseen = [s for s in self.saved.values() if not s.seen_by(who)]
        return [i for i in ids if i not in visible] + [
            s.marker for s in unseen if s.marker in text or s.id in text
        ]

    def pool(self) -> list[Saved]:
        """Every memory of both workspaces (the neighbour's are a few: attacked now and then),
        ordered by what the oracle looks at, so replaying an example (new ids) picks the
        same kind of memory at each step and fails the same way."""
        return sorted(
            self.saved.values(),
            key=lambda s: (s.side, s.node, s.kind, s.visibility, s.forgotten, s.id),
        )


async def in_batches(steps: list[Awaitable[Any]], size: int = 6) -> list[Any]:
    """A few at a time: the pipeline batches them, and the 2-core machine keeps up."""
    done = []
    for start in range(0, len(steps), size):
        done += await asyncio.gather(*steps[start : start + size])
    return done


def recalled_ids(results: list[dict]) -> list[str]:
    """Every memory id a recall answer names: the results and whatever they stand in for."""
    ids = []
    for result in results:
        ids += [result["id"], *result.get("replaces", [])]
        ids += [result["superseded_by"]] if result.get("superseded_by") else []
    return ids
