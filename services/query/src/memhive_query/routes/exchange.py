"""/v1/export and /v1/import: a workspace's memories out (memhive's JSONL, or Markdown files
in a zip) and in (that JSONL, mem0's get_all JSON, Markdown memory files). Both stream:
the export line by line, the import one outcome per line as each item is decided."""

from __future__ import annotations

import io
import json
import logging
import weakref
import zipfile
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from memhive_domain.errors import DomainError, FieldProblem, InvalidInput
from memhive_domain.exchange.formats import ImportFormat, format_of
from memhive_ports import BusUnavailable
from starlette.requests import ClientDisconnect

from memhive_query.openapi import errors
from memhive_query.request_types import OptionalScopePath
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.use_cases.import_budget import HeldBytes
from memhive_query.use_cases.imports import ImportRequest, ImportRun, ItemOutcome

router = APIRouter(prefix="/v1", tags=["import and export"], responses=errors(401, 403, 422))

NDJSON = "application/x-ndjson"
CLIENT_CLOSED_REQUEST = 499  # as nginx logs it; never sent, only seen in access logs
log = logging.getLogger(__name__)
ScopePath = Annotated[
    OptionalScopePath | None,
    Query(description="one node of the scope tree; omitted: all you may read"),
]


@router.get(
    "/export",
    response_class=Response,
    responses={200: {"description": "the export", "content": {NDJSON: {}, "application/zip": {}}}},
)
async def export(
    gw: GatewayDep,
    who: PrincipalDep,
    format: Literal["jsonl", "markdown"] = "jsonl",  # noqa: A002 (the query parameter's name)
    scope_path: ScopePath = None,
) -> Response:
    """Members and admins. `jsonl`: a header line, one line per memory (every field), per edge
    between exported memories and per revision, for `POST /v1/import` to restore; `markdown`:
    a zip of one file per node of the scope tree, for a person."""
    if format == "jsonl":
        lines = _ending_plainly(await gw.export.jsonl(who, scope_path))
        return StreamingResponse(lines, media_type=NDJSON, headers=_attachment("memhive.jsonl"))
    files = await gw.export.markdown(who, scope_path)
    return Response(_zip(files), media_type="application/zip", headers=_attachment("memhive.zip"))


@router.post(
    "/import",
    response_class=StreamingResponse,
    responses={200: {"description": "one JSON object per line", "content": {NDJSON: {}}}}
    | errors(413, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "the file, as UTF-8 text",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
async def import_file(
    request: Request,
    gw: GatewayDep,
    who: PrincipalDep,
    format: Annotated[  # noqa: A002 (the query parameter's name)
        ImportFormat | None,
        Query(
            description="omitted: from `path` (.jsonl, .json, a file of Claude Code's auto "
            "memory, else Markdown)"
        ),
    ] = None,
    path: Annotated[
        str, Query(max_length=512, description="the file's name, e.g. CLAUDE.md (source_ref)")
    ] = "",
    scope_path: ScopePath = None,
    dry_run: bool = False,
    force: bool = False,
) -> StreamingResponse:
    """Members and admins. The whole file is checked before anything is written (422 naming
    each bad line; 403 naming an item's node the caller may not write). Then one line per
    item: `{"type": "plan", "total": n}`, `{"type": "item", "line", "status" (created,
    restored, linked, skipped), "memory_id", "kind", "reason", ...}`, then `{"type":
    "summary"}`. Exact duplicates are skipped, so importing twice creates nothing. 503 with
    Retry-After, before the file is read, while other imports hold this gateway's share of
    memory for imports (`MEMHIVE_QUERY__IMPORT_BYTES_AT_ONCE`)."""
    held = gw.import_budget.take(request.headers.get("content-length"))
    try:
        raw = b"".join([chunk async for chunk in request.stream()])  # not kept by the request
        held.shrink_to(len(raw))
        asked = ImportRequest(
            form=format or format_of(path),
            text=_text(raw),
            path=path,
            scope_path=scope_path,
            dry_run=dry_run,
            force=force,
        )
        del raw  # the text is what the plan reads
        run = await gw.imports.plan(who, asked)
    except ClientDisconnect:  # the caller left mid-upload: nothing imported, nobody to answer
        held.release()
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    except BaseException:
        held.release()
        raise
    report = _report(run, gw.imports.run(who, run, asked), dry_run, held)
    # Given back however the answer ends: in full, cut short, or never sent at all.
    weakref.finalize(report, held.release)
    return StreamingResponse(report, media_type=NDJSON)


async def _report(
    run: ImportRun, outcomes: AsyncIterator[ItemOutcome], dry_run: bool, held: HeldBytes
) -> AsyncIterator[str]:
    try:
        yield _line({"type": "plan", "total": run.total, "dry_run": dry_run, "notes": run.notes})
        items = (_line({"type": "item"} | _outcome_json(outcome)) async for outcome in outcomes)
        async for line in _ending_plainly(items):
            yield line
            if line.startswith('{"type":"error"'):
                return
        tally = run.tally
        yield _line(
            {"type": "summary", "created": tally.created, "skipped": tally.skipped}
            | {"reasons": tally.reasons, "dry_run": dry_run}
        )
    finally:
        held.release()


async def _ending_plainly(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """An answer that has started cannot change its status: a failure past that point is
    its last line, `{"type": "error", "detail": ...}` (an export ending so is not importable,
    so a cut file is never taken for a whole one)."""
    try:
        async for line in lines:
            yield line
    except BusUnavailable as exc:
        yield _line({"type": "error", "detail": f"memhive's bus cannot take this now: {exc}"})
    except DomainError as exc:
        yield _line({"type": "error", "detail": str(exc)})
    except Exception as exc:
        log.exception("a streamed answer failed")
        yield _line({"type": "error", "detail": f"memhive failed: {type(exc).__name__}"})


def _outcome_json(outcome: ItemOutcome) -> dict:
    return {
        "line": outcome.line,
        "status": outcome.status,
        "dry_run": outcome.dry_run,
        "memory_id": outcome.memory_id,
        "kind": outcome.kind,
        "scope_path": outcome.scope_path,
        "source_ref": outcome.source_ref,
        "supersedes": list(outcome.supersedes),
        "reason": outcome.reason,
    }


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = raw[: bad.start].count(b"\n") + 1
        raise InvalidInput([FieldProblem(f"line {line}", "not UTF-8 text")]) from None


def _line(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}
