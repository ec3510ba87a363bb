"""`memhive export` and `memhive import`: a workspace's memories out and in, over the
gateway's REST API (/v1/export, /v1/import) with a token, like any client.

    memhive export -o memhive.jsonl                 # every field, edges, revisions
    memhive export --format markdown -o memories/   # one file per node, for people
    memhive import memhive.jsonl                    # restores it (ids, authors, times)
    memhive import CLAUDE.md .cursor/rules/*.mdc --dry-run
    memhive import mem0.json --format mem0 --scope-path product:shop
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import zipfile
from pathlib import Path

IMPORT_FORMATS = ("memhive", "mem0", "markdown", "claude-memory")
# A gateway busy with other imports (or its bus for a moment) answers 503 with Retry-After:
# the import waits its turn this long at most, saying so, before it gives up.
BUSY_WAIT_S = 30 * 60


def register(sub) -> None:
    out = sub.add_parser("export", help="write the memories you may read to JSONL or Markdown")
    out.add_argument("--format", choices=("jsonl", "markdown"), default="jsonl")
    out.add_argument("--scope-path", default=None, help="one node only, e.g. product:ios")
    out.add_argument(
        "-o",
        "--output",
        default=None,
        help="a file (jsonl; default: stdout) or a directory (markdown)",
    )
    _connection(out)
    out.set_defaults(command=_do_export)

    into = sub.add_parser("import", help="bring memories in: memhive JSONL, mem0, Markdown")
    into.add_argument("files", nargs="+", help="CLAUDE.md, AGENTS.md, *.mdc, export.jsonl, ...")
    into.add_argument(
        "--format",
        choices=IMPORT_FORMATS,
        default=None,
        help="default: by name (.jsonl memhive, .json mem0, else markdown)",
    )
    into.add_argument(
        "--scope-path",
        default=None,
        help="the node to import into (default: "
        "your token's home; memhive exports keep their own nodes)",
    )
    into.add_argument("--dry-run", action="store_true", help="say what would happen, write nothing")
    into.add_argument("--force", action="store_true", help="import near-duplicates too")
    _connection(into)
    into.set_defaults(command=_do_import)


def _connection(p) -> None:
    p.add_argument(
        "--url", default=None, help="gateway URL (or MEMHIVE_URL; default: the running memhive)"
    )
    p.add_argument(
        "--token", default=None, help="bearer token (or MEMHIVE_TOKEN, or `memhive login`'s)"
    )


class Refused(Exception):
    """The gateway said no: printed as it said it, exit 1."""


def _client(args: argparse.Namespace):
    from memhive_cli.gateway_access import NoToken, gateway_http

    try:
        return gateway_http(os.environ, url=args.url, token=args.token)
    except NoToken as missing:
        raise Refused(str(missing)) from None


async def _do_export(args: argparse.Namespace) -> int:
    params = {"format": args.format} | ({"scope_path": args.scope_path} if args.scope_path else {})
    try:
        async with _client(args) as http, http.stream("GET", "/v1/export", params=params) as answer:
            await _refused(answer)
            if args.format == "markdown":
                files = _unzip(await answer.aread(), Path(args.output or "memhive-export"))
                print(f"{len(files)} files in {args.output or 'memhive-export'}", file=sys.stderr)
                return 0
            await _write_lines(answer, args.output)
    except Refused as refusal:
        print(f"memhive: {refusal}", file=sys.stderr)
        return 1
    return 0


async def _write_lines(answer, output: str | None) -> None:
    # The CLI's loop runs nothing else: a blocking write costs nobody a wait.
    target = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115, ASYNC230
    count = 0
    try:
        async for line in answer.aiter_lines():
            target.write(line + "\n")
            count += 1
    finally:
        if output:
            target.close()
    print(f"{max(count - 1, 0)} lines exported", file=sys.stderr)


def _unzip(data: bytes, directory: Path) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        for name in names:
            (directory / Path(name).name).write_bytes(archive.read(name))
    return names


async def _do_import(args: argparse.Namespace) -> int:
    from memhive_cli.import_report import ImportProgress

    files = [Path(f) for f in args.files]
    if missing := [str(f) for f in files if not f.is_file()]:
        print(f"memhive: no such file: {', '.join(missing)}", file=sys.stderr)
        return 1
    try:
        async with _client(args) as http:
            if len(files) > 1 and not args.dry_run:  # all or none: every file checked first
                for file in files:
                    await _import_one(http, args, file, dry_run=True, progress=None)
            for file in files:
                await _import_one(http, args, file, args.dry_run, ImportProgress(str(file)))
    except Refused as refusal:
        print(f"memhive: {refusal}", file=sys.stderr)
        return 1
    return 0


async def _import_one(http, args, file: Path, dry_run: bool, progress) -> None:
    params = {
        "path": _shown(file),
        "dry_run": str(dry_run).lower(),
        "force": str(args.force).lower(),
    }
    params |= {k: v for k, v in (("format", args.format), ("scope_path", args.scope_path)) if v}
    content = await asyncio.to_thread(file.read_bytes)
    waited = 0.0
    while True:
        async with http.stream("POST", "/v1/import", params=params, content=content) as r:
            pause = _retry_after(r) if waited < BUSY_WAIT_S else None
            if pause is None:
                await _refused(r, f"{file}: ", "nothing was imported")
                async for line in r.aiter_lines():
                    if line.strip() and progress is not None:
                        progress.take(json.loads(line))
                break
            await r.aread()
            print(f"memhive: {file}: {_detail(r)}; trying again in {pause:g} s", file=sys.stderr)
        await asyncio.sleep(pause)
        waited += pause
    if progress is not None:
        progress.close()


def _retry_after(answer) -> float | None:
    """Seconds to wait before asking again, when the gateway said so with a 503."""
    after = answer.headers.get("retry-after", "")
    if answer.status_code != 503 or not after.isascii() or not after.isdigit():
        return None
    return min(float(after), 60.0)


def _detail(answer) -> str:
    """The gateway's sentence for a refusal (its status and text when the body is not JSON)."""
    try:
        return str(answer.json().get("detail", answer.status_code))
    except ValueError:
        return f"{answer.status_code}: {answer.text[:200]}"


def _problems(answer) -> list[dict]:
    try:
        return answer.json().get("problems") or []
    except ValueError:
        return []


def _shown(file: Path) -> str:
    """The name the memories' source_ref keeps: relative to here when it is below it."""
    try:
        return file.resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return file.as_posix()


async def _refused(answer, prefix: str = "", consequence: str = "refused") -> None:
    if answer.status_code < 400:
        return
    await answer.aread()
    if problems := _problems(answer):
        lines = "\n".join(f"  {p['field']}: {p['message']}" for p in problems)
        raise Refused(f"{prefix}{consequence}:\n{lines}")
    raise Refused(f"{prefix}{_detail(answer)}")
