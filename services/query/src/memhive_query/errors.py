"""Domain errors to HTTP answers a caller can act on; nothing reaches the client as a 500 trace."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from memhive_domain.errors import ConcurrentUpdate, InvalidInput, NotAllowed, NotFound

from memhive_query.auth import Unauthenticated
from memhive_query.schemas import memory_json
from memhive_query.use_cases.conflicts import NearDuplicates


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(InvalidInput, _invalid_input)
    app.add_exception_handler(RequestValidationError, _malformed_request)
    app.add_exception_handler(NotFound, _status(404))
    app.add_exception_handler(NotAllowed, _status(403))
    app.add_exception_handler(ConcurrentUpdate, _status(409))
    app.add_exception_handler(Unauthenticated, _unauthenticated)
    app.add_exception_handler(NearDuplicates, _near_duplicates)


async def _invalid_input(_: Request, exc: InvalidInput) -> JSONResponse:
    problems = [{"field": p.field, "message": p.message} for p in exc.problems]
    return JSONResponse({"detail": str(exc), "problems": problems}, status_code=422)


async def _malformed_request(_: Request, exc: RequestValidationError) -> JSONResponse:
    problems = [
        {
            "field": ".".join(str(part) for part in e["loc"] if part != "body") or "body",
            "message": e["msg"],
        }
        for e in exc.errors()
    ]
    detail = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    return JSONResponse({"detail": detail, "problems": problems}, status_code=422)


async def _unauthenticated(_: Request, exc: Unauthenticated) -> JSONResponse:
    return JSONResponse(
        {"detail": str(exc)}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
    )


async def _near_duplicates(_: Request, exc: NearDuplicates) -> JSONResponse:
    similar = [memory_json(s.memory) | {"similarity": round(s.similarity, 4)} for s in exc.similar]
    return JSONResponse({"detail": str(exc), "similar": similar}, status_code=409)


def _status(code: int):
    async def handler(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=code)

    return handler
