"""Domain errors to HTTP answers a caller can act on; nothing reaches the client as a 500 trace.

Every error body has one shape (`ErrorBody`, declared in the OpenAPI document): `detail`, a
sentence, and `problems`, the fields to fix. Bodies are rendered so that no caller-supplied
text (a lone surrogate echoed in a field name, say) can make the answer itself fail.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from memhive_application.authentication import Unauthenticated
from memhive_domain.errors import ConcurrentUpdate, InvalidInput, NotAllowed, NotFound
from memhive_domain.kv import RevisionMismatch
from memhive_ports import BusUnavailable, InsufficientStorage, RetryLater
from starlette.exceptions import HTTPException

from memhive_query.schemas import memory_json
from memhive_query.use_cases.conflicts import NearDuplicates
from memhive_query.use_cases.consolidate import SummaryUnavailable
from memhive_query.use_cases.link import LinkRejected
from memhive_query.use_cases.update import ChangeRejected
from memhive_query.validation_problems import field_problems


class BodyTooLarge(Exception):
    """Raised while a route reads a body that grew past its path's bound (request_guards)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is larger than {limit} bytes")


class SafeJSONResponse(JSONResponse):
    """UTF-8 JSON in which any unencodable character becomes '?', instead of a crash."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8", "replace")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(InvalidInput, _invalid_input)
    app.add_exception_handler(RequestValidationError, _malformed_request)
    app.add_exception_handler(HTTPException, _http_exception)
    app.add_exception_handler(NotFound, _status(404))
    app.add_exception_handler(NotAllowed, _status(403))
    app.add_exception_handler(ConcurrentUpdate, _status(409))
    app.add_exception_handler(LinkRejected, _status(409))
    app.add_exception_handler(ChangeRejected, _status(409))
    app.add_exception_handler(Unauthenticated, _unauthenticated)
    app.add_exception_handler(NearDuplicates, _near_duplicates)
    app.add_exception_handler(RevisionMismatch, _revision_mismatch)
    app.add_exception_handler(SummaryUnavailable, _status(503))
    app.add_exception_handler(RetryLater, _retry_later)
    app.add_exception_handler(BodyTooLarge, _status(413))


def error_response(
    status_code: int, detail: str, problems: list[dict[str, str]] | None = None, **extra: Any
) -> JSONResponse:
    body = {"detail": detail, "problems": problems or []} | extra
    return SafeJSONResponse(body, status_code=status_code)


def problems_response(problems: list[dict[str, str]]) -> JSONResponse:
    detail = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    return error_response(422, detail, problems)


async def _invalid_input(_: Request, exc: InvalidInput) -> JSONResponse:
    return problems_response([{"field": p.field, "message": p.message} for p in exc.problems])


async def _malformed_request(_: Request, exc: RequestValidationError) -> JSONResponse:
    """Caught before the domain (a wrong type, a missing field): one sentence per field."""
    problems = field_problems(exc.errors(), skip=1)
    return problems_response([{"field": p.field, "message": p.message} for p in problems])


async def _http_exception(_: Request, exc: HTTPException) -> JSONResponse:
    # FastAPI answers 400 for a body it cannot parse at all (too deeply nested JSON, say):
    # to a caller that is one more invalid body.
    if exc.status_code == 400:
        return problems_response([{"field": "body", "message": str(exc.detail)}])
    body = {"detail": str(exc.detail), "problems": []}
    return SafeJSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _unauthenticated(_: Request, exc: Unauthenticated) -> JSONResponse:
    response = error_response(401, str(exc))
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


async def _near_duplicates(_: Request, exc: NearDuplicates) -> JSONResponse:
    similar = [memory_json(s.memory) | {"similarity": round(s.similarity, 4)} for s in exc.similar]
    return error_response(409, str(exc), similar=similar)


async def _revision_mismatch(_: Request, exc: RevisionMismatch) -> JSONResponse:
    return error_response(409, str(exc), current_revision=exc.current)


async def _retry_later(_: Request, exc: RetryLater) -> JSONResponse:
    return retry_later_response(exc)


def retry_later_response(exc: RetryLater) -> JSONResponse:
    """503 (507 for a full disk) with Retry-After. Nothing was stored: the same request,
    retried, is safe (a save may then answer 200 with the id of an identical body that did
    land)."""
    if isinstance(exc, InsufficientStorage):
        response = error_response(507, str(exc))
    elif isinstance(exc, BusUnavailable):
        response = error_response(503, f"memhive's bus cannot take this right now: {exc}")
    else:
        response = error_response(503, str(exc))
    response.headers["Retry-After"] = str(exc.retry_after_s)
    return response


def _status(code: int):
    async def handler(_: Request, exc: Exception) -> JSONResponse:
        return error_response(code, str(exc))

    return handler
