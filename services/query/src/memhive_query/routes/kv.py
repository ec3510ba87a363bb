"""/v1/kv: key/value memory, one JSON value per key at a node of the scope tree.

The node is a path that may hold '/', so it is the route's `{scope:path}` and the key is the
last segment (keys never hold '/'). Writes are compare-and-set: `If-Match: <revision>` (or
`revision` in the body) and create-only `If-None-Match: *` (or `create_only`); a mismatch
is a 409 with the current revision. Every answer carries the entry's revision as its ETag.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from memhive_domain.errors import FieldProblem, InvalidInput
from memhive_domain.kv import (
    DEFAULT_PAGE,
    KEY_PATTERN,
    MAX_CURSOR_CHARS,
    MAX_PAGE,
    MAX_REVISION,
    KvEntry,
    WriteRequest,
)
from memhive_domain.scopes import SCOPE_PATH_PATTERN

from memhive_query.openapi import RevisionConflictBody, errors
from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.schemas import KvPutRequest, entry_json

# One revision, bare or as the ETag this API sends (quoted, possibly weak); `*`: any entry.
IF_MATCH_PATTERN = r'^(?:\*|(?:W/)?"*[0-9]{1,16}"*)$'

router = APIRouter(prefix="/v1/kv", tags=["key/value"], responses=errors(401, 403, 422))

# The patterns are the document's; the domain checks them (address_of) on the path as sent,
# split by `_address` below, so a refusal names the right one.
Scope = Annotated[
    str,
    Path(
        description="a node of the scope tree, e.g. product:ios",
        json_schema_extra={"pattern": SCOPE_PATH_PATTERN},
    ),
]
Key = Annotated[
    str,
    Path(
        description="1-128 of letters, digits, '.', '_', ':', '-'",
        json_schema_extra={"pattern": KEY_PATTERN.pattern},
    ),
]


async def _address(request: Request, scope: Scope, key: Key) -> tuple[str, str]:
    """The node and the key as the caller wrote them: the router decodes `%2F` before it
    splits, so a key holding an encoded '/' would otherwise lend part of itself to the
    scope; split the raw path instead, so such a key is refused as a key."""
    raw = request.scope.get("raw_path", b"").decode("latin-1").partition("?")[0]
    prefix = f"{router.prefix}/"
    if not raw.startswith(prefix) or "/" not in raw[len(prefix) :]:
        return scope, key
    raw_scope, _, raw_key = raw[len(prefix) :].rpartition("/")
    return unquote(raw_scope), unquote(raw_key)


Address = Annotated[tuple[str, str], Depends(_address)]
# Plain strings, not nullable: a header is there or not (a generator would send "null").
IfMatch = Annotated[
    str,
    Header(
        json_schema_extra={"pattern": IF_MATCH_PATTERN},  # the domain names it If-Match
        description='compare-and-set: the revision you read, e.g. "12" (1..2^53-1), or *',
    ),
]


@router.get("")
async def list_entries(
    gw: GatewayDep,
    who: PrincipalDep,
    scope: Annotated[str, Query(pattern=SCOPE_PATH_PATTERN, description="the node to list")],
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)] = None,
    include_values: bool = False,
) -> dict:
    """The node's entries, in the order they were last written (oldest first); values only
    with `include_values`. Pass `next_cursor` back as `cursor` until it is null."""
    listing = await gw.kv.list(who, scope, cursor, limit)
    return {
        "scope": listing.node.key,
        "items": [entry_json(e, with_value=include_values) for e in listing.entries],
        "next_cursor": listing.next_cursor,
    }


@router.get("/{scope:path}/{key}", responses=errors(404))
async def get_entry(address: Address, gw: GatewayDep, who: PrincipalDep) -> JSONResponse:
    return _answer(await gw.kv.get(who, *address))


# A node path the router cannot match (a line break in it: `{scope:path}` stops at one) is
# the app's 404 before any validation, so PUT declares 404 too.
@router.put(
    "/{scope:path}/{key}", responses=errors(404, 409, 413, 503, conflict=RevisionConflictBody)
)
async def put_entry(
    address: Address,
    request: KvPutRequest,
    gw: GatewayDep,
    who: PrincipalDep,
    if_match: IfMatch = None,  # type: ignore[assignment]
    if_none_match: Annotated[
        str, Header(description="`*`: create only", json_schema_extra={"pattern": r"^\*$"})
    ] = None,  # type: ignore[assignment]
) -> JSONResponse:
    """Write the key's value (replacing it, with its TTL). Conditional with `If-Match` /
    `revision`, or `If-None-Match: *` / `create_only`."""
    write = WriteRequest(
        *address,
        request.value,
        ttl_s=request.ttl_s,
        revision=request.revision,
        if_match=if_match,
        create_only=request.create_only or _create_only(if_none_match),
    )
    return _answer(await gw.kv.put(who, write))


@router.delete(
    "/{scope:path}/{key}", responses=errors(404, 409, 503, conflict=RevisionConflictBody)
)
async def delete_entry(
    address: Address,
    gw: GatewayDep,
    who: PrincipalDep,
    if_match: IfMatch = None,  # type: ignore[assignment]
    revision: Annotated[
        int | None, Query(ge=1, le=MAX_REVISION, description="delete only at this revision")
    ] = None,
) -> dict:
    deleted = await gw.kv.delete(who, *address, revision, if_match)
    return {"scope": deleted.node.key, "key": deleted.key, "status": "deleted"}


def _answer(entry: KvEntry) -> JSONResponse:
    return JSONResponse(entry_json(entry), headers={"ETag": f'"{entry.revision}"'})


def _create_only(if_none_match: str | None) -> bool:
    if if_none_match is None:
        return False
    if if_none_match.strip() != "*":
        raise InvalidInput([FieldProblem("If-None-Match", "only * (create only) is supported")])
    return True
