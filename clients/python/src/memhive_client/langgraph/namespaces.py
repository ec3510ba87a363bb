"""Where a LangGraph namespace lives in memhive: its node of the scope tree, its key/value key,
the tags that let recall find its items by namespace prefix. Pure functions, no I/O."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

ITEM_PREFIX = "lg."  # key/value keys of items (the rest of the node's keys are not ours)
NODES_KEY = "langgraph.nodes"  # at the store's root node: every node the store has written
STORE_TAG = "langgraph"
_SEGMENT = re.compile(r"^(product|team|agent):[A-Za-z0-9][A-Za-z0-9._@:-]*$")
_ORDER = ("product", "team", "agent")


@dataclass(frozen=True, slots=True)
class Placement:
    node: str  # a scope-tree path, e.g. "product:ios/team:mobile"
    kv_key: str


def node_of(namespace: tuple[str, ...], root: str) -> str:
    """The namespace's leading tree labels ("product:ios", "team:mobile", "agent:bob", in that
    order) below the store's root node; namespaces without them live at the root."""
    parts = [] if root == "global" else root.split("/")
    last = max((_ORDER.index(p.split(":", 1)[0]) for p in parts), default=-1)
    for label in namespace:
        level = label.split(":", 1)[0]
        if not _SEGMENT.match(label) or _ORDER.index(level) <= last:
            break
        parts.append(label)
        last = _ORDER.index(level)
    return "/".join(parts) or "global"


def placement(namespace: tuple[str, ...], key: str, root: str) -> Placement:
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()[:40]
    return Placement(node_of(namespace, root), f"{ITEM_PREFIX}{digest}")


def prefix_tag(root: str, prefix: tuple[str, ...]) -> str:
    """One tag per namespace prefix of an item (the empty one too) under the store's root:
    recall filtered by it finds the items of every namespace below that prefix, and only this
    store's (tags are lowercase and short, so root and prefix are hashed)."""
    digest = hashlib.sha256(json.dumps([root, *prefix]).encode()).hexdigest()[:24]
    return f"lg:{digest}"


def tags_of(root: str, namespace: tuple[str, ...]) -> list[str]:
    """The store's tag and every prefix's (at most 30 levels: memhive keeps 32 tags)."""
    levels = range(0, min(len(namespace), 30) + 1)
    return [STORE_TAG] + [prefix_tag(root, namespace[:n]) for n in levels]


def source_ref(node: str, kv_key: str) -> str:
    """Names the item a memory stands for, so a recall hit leads back to it."""
    return f"langgraph:{node}|{kv_key}"


def item_address(ref: str | None) -> tuple[str, str] | None:
    if not ref or not ref.startswith("langgraph:") or "|" not in ref:
        return None
    node, _, kv_key = ref[len("langgraph:") :].rpartition("|")
    return node, kv_key


def could_hold(node: str, prefix: tuple[str, ...], root: str) -> bool:
    """Whether items of namespaces starting with `prefix` may live at `node`: the prefix's own
    node when a collection label follows its tree labels, else that node or one below it."""
    wanted = node_of(prefix, root)
    if len(prefix) > _depth(wanted) - _depth(root):
        return node == wanted
    return node == wanted or wanted == "global" or node.startswith(wanted + "/")


def _depth(path: str) -> int:
    return 0 if path == "global" else len(path.split("/"))
