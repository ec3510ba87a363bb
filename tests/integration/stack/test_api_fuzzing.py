"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis), against
the real stack over loopback HTTP: no answer >= 500, every status code and body as documented.

Bounded: a few examples per operation and mode, so the whole run stays in tens of seconds.
Run with MEMHIVE_FUZZ_EXAMPLES=200 for a deeper search. The fuzzing runs in a process of its
own (`fuzz_runner`: why is said there); this test serves the stack and judges the outcome.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import httpx
import pytest

from tests.integration.stack.conftest import Stack, Workspace

EXAMPLES = int(os.environ.get("MEMHIVE_FUZZ_EXAMPLES", "6"))
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.timeout(300)
async def test_fuzzing_finds_no_server_error_and_no_undocumented_answer(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    member = await stack.token(workspace.id)
    reader = await stack.token(workspace.id, member=False, user="guest")
    runner = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.integration.stack.fuzz_runner",
        gateway_url,
        str(EXAMPLES),
        f"{member}:positive,negative",
        f"{reader}:positive",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(runner.communicate(), timeout=280)
    finally:
        if runner.returncode is None:
            runner.kill()
    report = output.decode(errors="replace")
    assert runner.returncode == 0, report

    calls = int(report.strip().splitlines()[-1])
    assert calls >= 12 * EXAMPLES, report  # every operation ran
    async with httpx.AsyncClient(base_url=gateway_url) as client:
        assert (await client.get("/healthz")).status_code == 200  # and the process lives
