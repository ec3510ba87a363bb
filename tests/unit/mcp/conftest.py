"""MCP client sessions, in memory, against the real tools over a FakeMemoryApi.

Sessions are opened inside each test (`async with connect() as client`): the SDK's
task groups must be entered and left in the same task, which a yield fixture is not.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from mcp import Client
from memhive_query.mcp.server import build_mcp_server

from tests.unit.mcp.fake_api import FakeMemoryApi

Connect = Callable[[], AbstractAsyncContextManager[Client]]


@pytest.fixture
def fake_api() -> FakeMemoryApi:
    return FakeMemoryApi()


# "legacy" frames every message as JSON-RPC over in-memory streams; "auto" takes the
# SDK's direct in-process path. The tools must behave the same on both.
@pytest.fixture(params=["legacy", "auto"])
def connect(request: pytest.FixtureRequest, fake_api: FakeMemoryApi) -> Connect:
    server = build_mcp_server(lambda: fake_api)
    return lambda: Client(server, mode=request.param)
