"""A stand-in for the gateway's REST API: the real routes and JSON shapes, a fake behind them.

One bearer token ("rest-token"); refusals are `{"detail": ...}` with the port's status,
409 adds `similar`; a recall without `query` gets FastAPI's own 422 list of problems.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from memhive_query.mcp.api import ApiError, NearDuplicatesFound
from pydantic import BaseModel, ConfigDict

from tests.unit.mcp.fake_api import FakeMemoryApi

REST_TOKEN = "rest-token"


class RecallBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    query: str


def build_rest_gateway(api: FakeMemoryApi) -> FastAPI:
    app = FastAPI(dependencies=[Depends(_require_token)])
    app.add_exception_handler(ApiError, _refusal)  # type: ignore[arg-type]

    @app.post("/v1/memories")
    async def save(body: dict[str, Any], wait: str) -> dict:
        return await api.save(body)

    @app.post("/v1/recall")
    async def recall(body: RecallBody) -> dict:
        return await api.recall(body.model_dump())

    @app.delete("/v1/memories/{memory_id}")
    async def forget(memory_id: str, wait: str) -> dict:
        return await api.forget(memory_id)

    @app.get("/v1/memories/{memory_id}")
    async def get(memory_id: str) -> dict:
        return await api.get(memory_id)

    @app.get("/v1/memories")
    async def list_(request: Request) -> dict:
        fields: dict[str, Any] = dict(request.query_params)
        if "limit" in fields:
            fields["limit"] = int(fields["limit"])
        return await api.list(fields)

    @app.post("/v1/edges")
    async def link(body: dict[str, Any]) -> dict:
        return await api.link(body)

    @app.get("/v1/bulletins/{scope:path}")
    async def bulletin(scope: str, product_id: str | None = None) -> dict:
        return await api.bulletin({"scope": scope, "product_id": product_id})

    @app.post("/v1/memories/{memory_id}/crystallize")
    async def crystallize(memory_id: str, body: dict[str, Any], wait: str) -> dict:
        return await api.crystallize(memory_id, body)

    @app.get("/v1/memories/{memory_id}/skill")
    async def skill_file(memory_id: str) -> PlainTextResponse:
        return PlainTextResponse(await api.skill_file(memory_id), media_type="text/markdown")

    @app.get("/v1/scopes")
    async def scopes() -> dict:
        return await api.scopes()

    @app.get("/v1/skills")
    async def skills(limit: int = 20, cursor: str | None = None) -> dict:
        return await api.skills({"limit": limit})

    @app.post("/v1/context")
    async def context(body: dict[str, Any]) -> dict:
        return await api.context(body)

    return app


async def _require_token(authorization: str = Header(default="")) -> None:
    if authorization != f"Bearer {REST_TOKEN}":
        raise HTTPException(401, "The bearer token was not recognised; check --token.")


async def _refusal(_: Request, error: ApiError) -> JSONResponse:
    body: dict[str, Any] = {"detail": error.message}
    if isinstance(error, NearDuplicatesFound):
        body["similar"] = error.similar
    return JSONResponse(body, status_code=error.status)
