"""A write the bus cannot take for now is a 503 with Retry-After, never a 500."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from memhive_ports import BusUnavailable
from memhive_query.errors import install_error_handlers


def test_bus_unavailable_is_503_with_retry_after() -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/save")
    async def save() -> None:
        raise BusUnavailable("the bus did not store memhive.cmd.memory.save after 6 attempts")

    answer = TestClient(app).post("/save")
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert answer.json() == {
        "detail": "memhive's bus cannot take this right now: the bus did not store "
        "memhive.cmd.memory.save after 6 attempts",
        "problems": [],
    }
