"""Every route of the gateway while its nats-server is stopped (SIGSTOP): each answers within
5 s, never a 500; what needs the bus answers 503 with Retry-After. A stack of its own (the
session's shares the session's server, which must keep answering the other tests)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import PID_FILE, EmbeddedNatsServer
from memhive_adapters.process_lifetime import read_pid
from memhive_domain.principals import Principal, Role

from tests.integration.conftest import free_port
from tests.integration.stack.conftest import Stack, running_stack
from tests.stalls import stopped

BOUND_S = 5.0
READINESS = ("GET", "/readyz")
PARAMETERS = {"scope": "global", "key": "plan", "product_id": "app", "token_id": "0" * 16}
BODIES = {
    ("POST", "/v1/memories"): {"kind": "fact", "body": "saved while the bus is stalled"},
    ("POST", "/v1/recall"): {"query": "what was saved?"},
    ("POST", "/v1/context"): {"query": "what was saved?"},
    ("PATCH", "/v1/memories/{memory_id}"): {"importance": 0.9},
    ("PUT", "/v1/kv/{scope}/{key}"): {"value": {"step": 1}},
    ("POST", "/v1/admin/tokens"): {"user": "stalled", "role": "member"},
}
# What cannot answer without the bus: a 503 with Retry-After, not merely "not a 500".
NEEDS_THE_BUS = {
    ("POST", "/v1/memories"),
    ("POST", "/v1/recall"),
    ("GET", "/v1/memories"),
    ("GET", "/v1/memories/{memory_id}"),
    ("GET", "/v1/memories/{memory_id}/revisions"),
    ("PATCH", "/v1/memories/{memory_id}"),
    ("DELETE", "/v1/memories/{memory_id}"),
    ("GET", "/v1/kv/{scope}/{key}"),
    ("PUT", "/v1/kv/{scope}/{key}"),
    ("GET", "/v1/activity"),
    ("GET", "/v1/admin/audit"),
    ("POST", "/v1/admin/tokens"),
}


@pytest.fixture
async def own_stack(tmp_path: Path, bus_auth: EmbeddedBusAuth) -> AsyncIterator[Stack]:
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(),
                                config_file=bus_auth.config_path)  # fmt: skip
    async with server, running_stack(server.url, bus_auth, tmp_path / "data") as stack:
        yield stack


def concrete(path: str, memory_id: str) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1).split(":")[0]
        return memory_id if name == "memory_id" else PARAMETERS.get(name, "x")

    return re.sub(r"\{([^}]+)\}", value, path)


@pytest.mark.timeout(300)
async def test_every_route_answers_within_5_s_and_never_500_while_the_bus_is_stalled(
    own_stack: Stack, tmp_path: Path
) -> None:
    token = await own_stack.infra.tokens.issue(Principal("ws-stall", "admin", Role.ADMIN))
    async with own_stack.client(token) as http:
        saved = await http.post("/v1/memories", json=BODIES[("POST", "/v1/memories")])
        assert saved.status_code == 201, saved.text  # the token is cached from here on
        paths = (await http.get("/openapi.json")).json()["paths"]
        routes = [(m.upper(), p) for p, ops in paths.items() for m in ops]
        assert set(routes) >= NEEDS_THE_BUS
        pid = read_pid(tmp_path / "nats" / PID_FILE)
        assert pid is not None
        answers = {}
        with stopped(pid):
            for method, path in routes:
                started = time.monotonic()
                target = concrete(path, saved.json()["id"])
                asked = http.request(method, target, json=BODIES.get((method, path)))
                answer = await asyncio.wait_for(asked, 2 * BOUND_S)
                answers[method, path] = (answer, time.monotonic() - started)

    statuses = {route: answer.status_code for route, (answer, _) in answers.items()}
    assert {route: round(s, 2) for route, (_, s) in answers.items() if s > BOUND_S} == {}
    assert {route: code for route, code in statuses.items() if code >= 500 and code != 503} == {}
    refused = {route for route, code in statuses.items() if code == 503} - {READINESS}
    assert refused >= NEEDS_THE_BUS, NEEDS_THE_BUS - refused
    assert {r for r in refused if not answers[r][0].headers.get("Retry-After")} == set()
    assert statuses[READINESS] == 503  # not ready: its answer, not a refusal
