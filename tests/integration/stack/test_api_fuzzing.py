"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis), against
the real stack over loopback HTTP: no answer >= 500, every status code and body as documented.

Bounded: a few examples per operation and mode, so the whole run stays in tens of seconds.
Run with MEMHIVE_FUZZ_EXAMPLES=200 for a deeper search.
"""

from __future__ import annotations

import asyncio
import os

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.integration.stack.conftest import Stack, Workspace

EXAMPLES = int(os.environ.get("MEMHIVE_FUZZ_EXAMPLES", "6"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def fuzz(schema, base_url: str, token: str, modes: list[GenerationMode]) -> int:
    """Runs every operation in every mode; returns how many requests were made."""
    headers = {"Authorization": f"Bearer {token}"}
    calls = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        # Negating a bare path id only searches for an impossible case: skip those.
        negatable = bool(len(operation.body) or len(operation.query))
        for mode in (m for m in modes if negatable or m is GenerationMode.POSITIVE):

            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case) -> None:
                nonlocal calls
                calls += 1
                response = case.call(base_url=base_url, headers=headers, timeout=30)
                case.validate_response(response, checks=CHECKS)

            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing to negate (e.g. /healthz)
    return calls


@pytest.mark.timeout(240)
# schemathesis's own strategy for some schemas draws from `random` (its code, not ours).
@pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies"
    ":hypothesis.errors.HypothesisDeprecationWarning"
)
async def test_fuzzing_finds_no_server_error_and_no_undocumented_answer(
    stack: Stack, workspace: Workspace, gateway_url: str
) -> None:
    document = (await workspace.member.get("/openapi.json")).json()
    member = await stack.token(workspace.id)
    reader = await stack.token(workspace.id, member=False, user="guest")
    both = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    # Loaded here, not in the fuzzing thread: schemathesis imports its OpenAPI modules on
    # first use, and CPython 3.11 can fail ("AST constructor recursion depth mismatch")
    # when pytest rewrites a module in one thread while another compiles.
    schema = schemathesis.openapi.from_dict(document)

    calls = await asyncio.to_thread(fuzz, schema, gateway_url, member, both)
    calls += await asyncio.to_thread(fuzz, schema, gateway_url, reader, both[:1])

    assert calls >= 12 * EXAMPLES  # every operation ran
    async with httpx.AsyncClient(base_url=gateway_url) as client:
        assert (await client.get("/healthz")).status_code == 200  # and the process lives
