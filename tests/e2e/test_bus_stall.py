"""`memhive run` with its nats-server stopped (SIGSTOP) for a while during saves and recalls:
every request asked meanwhile is answered 503 with Retry-After within 5 s (never a 500,
never a hang), /readyz says not ready within 5 s of the stall and ready within 5 s of the
SIGCONT, an MCP tool call answers a tool error saying the same, so do an agent's hooks
(503, as fast), and afterwards every acknowledged save is readable and recallable exactly
once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.running_stack import free_port
from tests.e2e.acknowledged import assert_kept_exactly_once
from tests.e2e.process import TOKEN, MemhiveProcess, client
from tests.e2e.workload import Answer, Workload
from tests.stalls import stopped as stalled

STALL_S = 12.0
BOUND_S = 5.0  # issue 24: a clear answer within 5 s


def readyz(url: str) -> int:
    return httpx.get(f"{url}/readyz", timeout=BOUND_S).status_code


def seconds_until(condition: Callable[[], bool], timeout_s: float) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"not within {timeout_s} s")
        time.sleep(0.1)
    return time.monotonic() - started


def fresh_token(url: str) -> str:
    """A token of its own, used once so the gateway holds it in its cache (30 s): the MCP
    call during the stall then reaches its tool, not a 503 at the token check."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    created = httpx.post(f"{url}/v1/admin/tokens", headers=headers, timeout=30,
                         json={"user": "mcp-agent", "role": "member"})  # fmt: skip
    assert created.status_code == 201, created.text
    token = created.json()["token"]
    time.sleep(1)  # its creation drops the cache: look it up after that
    mine = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{url}/v1/memories", headers=mine, timeout=30).status_code == 200
    return token


async def mcp_recall(url: str, token: str) -> tuple[bool, str]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp,
    ):
        result = await mcp.call_tool("recall_memory", {"query": "where is the checklist?"})
    return result.is_error, "\n".join(block.text for block in result.content)


HOOK_EVENTS = (
    {"hook_event_name": "SessionStart", "session_id": "stalled-start", "source": "startup"},
    {"hook_event_name": "UserPromptSubmit", "session_id": "stalled-prompt",
     "prompt": "where does the stall checklist live?"},
)  # fmt: skip


def agent_hook(url: str, event: dict) -> tuple[int, float, str]:
    """Claude Code's HTTP hook, as its settings in the README call it: status, seconds, detail."""
    began = time.monotonic()
    answer = httpx.post(f"{url}/v1/hooks/claude-code", json=event, timeout=4 * BOUND_S,
                        headers={"Authorization": f"Bearer {TOKEN}"})  # fmt: skip
    return answer.status_code, time.monotonic() - began, answer.text


def assert_bounded(answers: list[Answer], stopped: float, resumed: float) -> None:
    """No 500s and no dropped connections at all; everything asked before the SIGCONT was
    answered within 5 s of the later of its asking and the stall; what was asked once the
    stall was surely known (and surely before the SIGCONT could matter) is a 503."""
    assert [a for a in answers if a.status is None or a.status == 500] == []
    late = [
        a
        for a in answers
        if a.asked_at < resumed and a.ended_at > max(a.asked_at, stopped) + BOUND_S
    ]
    assert late == []
    stalled = [a for a in answers if stopped + 0.5 <= a.asked_at <= resumed - BOUND_S - 0.5]
    assert {a.kind for a in stalled} == {"save", "recall"}, stalled
    assert {(a.status, a.retry_after is not None) for a in stalled} == {(503, True)}, stalled


@pytest.mark.timeout(600)
def test_a_stalled_bus_answers_503_within_5_s_readiness_follows_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "stall")
    try:
        with memhive.explained():
            memhive.wait_until_ready()
            server = memhive.nats_server_pid()
            with Workload(memhive.url, "Stall") as load:
                load.wait_for_acks(10)
                token = fresh_token(memhive.url)
                with stalled(server) as stopped:
                    unready_after = seconds_until(lambda: readyz(memhive.url) == 503, 2 * BOUND_S)
                    refused, said = asyncio.run(mcp_recall(memhive.url, token))
                    hooks = [agent_hook(memhive.url, event) for event in HOOK_EVENTS]
                    time.sleep(max(0.0, stopped + STALL_S - time.monotonic()))
                resumed = time.monotonic()
                ready_after = seconds_until(lambda: readyz(memhive.url) == 200, 2 * BOUND_S)
                before = len(load.acked)
                load.wait_for_acks(before + 5)  # saves are acknowledged again

            assert unready_after <= BOUND_S and ready_after <= BOUND_S
            assert refused and "(503)" in said and "bus" in said, said
            # An agent's hooks read and write what its session was shown on the bus too: a
            # stall refuses them as fast as a recall, so no prompt waits on a hung bus.
            answered = [(status, took <= BOUND_S) for status, took, _ in hooks]
            assert answered == [(503, True), (503, True)], hooks
            assert all("bus" in detail for _, _, detail in hooks), hooks
            assert_bounded(load.answers, stopped, resumed)
            with client(memhive.url) as checked:
                assert_kept_exactly_once(checked, load.acked)
            assert memhive.ctrl_c() == 0, memhive.output()
    finally:
        memhive.ensure_gone()
