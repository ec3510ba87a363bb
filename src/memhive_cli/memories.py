"""`memhive save|recall|context|get|list|forget`: memories from a shell, through the Python client
(`memhive_client`) against the gateway (`gateway_access.py` says which one, with which
token). Readable output by default, the API's JSON with `--json`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from memhive_cli import memory_output as out
from memhive_cli.gateway_access import client_failures, gateway_client, report_client_failure

if TYPE_CHECKING:
    from memhive_client import AsyncMemhiveClient

KINDS = ("fact", "preference", "decision", "identity", "event", "observation", "goal", "todo",
         "procedure")  # fmt: skip
WAITS = ("accepted", "persisted", "indexed")


def register(sub) -> None:
    for add in (_save, _recall, _context, _get, _list, _forget):
        add(sub)


def _save(sub) -> None:
    p = sub.add_parser("save", help="save a memory")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("body", help="what to remember; - reads it from stdin")
    _where(p)
    p.add_argument("--tag", action="append", default=[], help="repeatable, e.g. --tag ci")
    p.add_argument("--importance", type=float, default=None, help="0..1")
    p.add_argument("--pinned", action="store_true", help="first in its scope's bulletin")
    p.add_argument("--visibility", choices=("private", "public"), default=None)
    p.add_argument("--source-ref", default=None, help="its id where it came from")
    p.add_argument("--occurred-at", default=None, help="ISO time it happened, if not now")
    p.add_argument("--expires-at", default=None, help="ISO time it stops being true")
    p.add_argument("--force", action="store_true", help="save even if near-duplicates exist")
    p.add_argument("--supersedes", action="append", default=[], metavar="ID",
                   help="a memory this one replaces (repeatable)")  # fmt: skip
    p.add_argument("--wait", choices=WAITS, default="indexed", help="default: indexed")
    _output(p, _do_save)


def _recall(sub) -> None:
    p = sub.add_parser("recall", help="the memories that answer a question, best first")
    p.add_argument("query")
    _where(p)
    p.add_argument("--kind", action="append", default=None, choices=KINDS, help="repeatable")
    p.add_argument("--tag", action="append", default=None, help="any of these (repeatable)")
    p.add_argument("--limit", type=int, default=None, help="1..20, default 6")
    p.add_argument("--min-confidence", type=float, default=None,
                   help="0..1; default: MCP recall_memory's; 0 shows every match")  # fmt: skip
    _output(p, _do_recall)


def _context(sub) -> None:
    p = sub.add_parser("context", help="the bulletin and the memories that matter, in a budget")
    p.add_argument("--query", default=None, help="the task at hand: memories about it first")
    _where(p)
    p.add_argument("--budget", type=int, default=1500, help="tokens, 1..32000 (default 1500)")
    _output(p, _do_context)


def _get(sub) -> None:
    p = sub.add_parser("get", help="one memory, whole")
    p.add_argument("id")
    _output(p, _do_get)


def _list(sub) -> None:
    p = sub.add_parser("list", help="memories, newest first, one page")
    _where(p)
    p.add_argument("--kind", action="append", default=None, choices=KINDS, help="repeatable")
    p.add_argument("--tag", action="append", default=None, help="any of these (repeatable)")
    p.add_argument("--limit", type=int, default=20, help="1..100, default 20")
    p.add_argument("--cursor", default=None, help="the next page, as the last page said")
    _output(p, _do_list)


def _forget(sub) -> None:
    p = sub.add_parser("forget", help="forget a memory: gone from every index, history kept")
    p.add_argument("id")
    p.add_argument("--wait", choices=WAITS, default="indexed", help="default: indexed")
    _output(p, _do_forget)


def _where(p: argparse.ArgumentParser) -> None:
    p.add_argument("--product", default=None, help="a product id, e.g. ios")
    p.add_argument("--scope-path", default=None, help="a node, e.g. product:ios/team:mobile")


def _output(p: argparse.ArgumentParser, command: Callable) -> None:
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(command=command)


async def _do_save(args: argparse.Namespace) -> int:
    body = sys.stdin.read().strip() if args.body == "-" else args.body
    fields = _present(
        product_id=args.product,
        scope_path=args.scope_path,
        tags=args.tag,
        importance=args.importance,
        pinned=args.pinned,
        visibility=args.visibility,
        source_ref=args.source_ref,
        occurred_at=args.occurred_at,
        expires_at=args.expires_at,
        force=args.force,
        supersedes=args.supersedes,
    )
    return await _answer(
        args, lambda api: api.save(args.kind, body, wait=args.wait, **fields), out.saved_text
    )


async def _do_recall(args: argparse.Namespace) -> int:
    # Off-topic questions come back empty, as for agents (README, "Recall").
    from memhive_domain.confidence import DEFAULT_MIN_CONFIDENCE

    floor = DEFAULT_MIN_CONFIDENCE if args.min_confidence is None else args.min_confidence
    fields = _present(
        product_id=args.product,
        scope_path=args.scope_path,
        kinds=args.kind,
        tags=args.tag,
        max_results=args.limit,
        min_confidence=floor,
    )

    async def recall(api: AsyncMemhiveClient) -> dict:
        return {"results": await api.recall(args.query, **fields)}

    return await _answer(args, recall, lambda answer: out.recalled_text(answer["results"]))


async def _do_context(args: argparse.Namespace) -> int:
    fields = _present(query=args.query, product_id=args.product, scope_path=args.scope_path)
    return await _answer(args, lambda api: api.context(args.budget, **fields), out.context_text)


async def _do_get(args: argparse.Namespace) -> int:
    return await _answer(args, lambda api: api.get(args.id), out.memory_text)


async def _do_list(args: argparse.Namespace) -> int:
    filters = _present(product_id=args.product, scope_path=args.scope_path, kind=args.kind,
                       tag=args.tag, cursor=args.cursor)  # fmt: skip
    return await _answer(args, lambda api: api.list(limit=args.limit, **filters), out.page_text)


async def _do_forget(args: argparse.Namespace) -> int:
    return await _answer(args, lambda api: api.forget(args.id, wait=args.wait), out.forgotten_text)


async def _answer(
    args: argparse.Namespace,
    call: Callable[[AsyncMemhiveClient], Awaitable[Any]],
    readable: Callable[[Any], str],
) -> int:
    try:
        async with gateway_client(os.environ) as api:
            answer = await call(api)
    except client_failures() as exc:
        return report_client_failure(exc)
    print(out.as_json(answer) if args.json else readable(answer))
    return 0


def _present(**fields: Any) -> dict[str, Any]:
    """The options given: the API's own defaults stand for the others."""
    return {
        name: value
        for name, value in fields.items()
        if value is not None and value is not False and value != []
    }
