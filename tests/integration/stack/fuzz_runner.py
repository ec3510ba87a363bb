"""Schemathesis over a live gateway, in a Python process of its own.

`test_api_fuzzing` starts this module: the fuzzing must not share an interpreter with the
stack. CPython 3.11's AST conversion keeps its recursion depth in interpreter-wide state
(gh-106905), so hypothesis parsing a strategy's source in one thread while another thread
parses or compiles an AST (pytest rewriting a module on import) fails at random with
"SystemError: AST constructor recursion depth mismatch".

    python -m tests.integration.stack.fuzz_runner URL EXAMPLES TOKEN:MODES [TOKEN:MODES ...]

MODES is `positive` or `positive,negative`. Prints the number of requests made; exits 1
with hypothesis's report when a check failed.
"""

from __future__ import annotations

import sys
import warnings

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import HypothesisDeprecationWarning, Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def fuzz(schema, base_url: str, token: str, modes: list[GenerationMode], examples: int) -> int:
    """Runs every operation in every mode; returns how many requests were made."""
    headers = {"Authorization": f"Bearer {token}"}
    calls = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        # Negating a bare path id only searches for an impossible case: skip those.
        negatable = bool(len(operation.body) or len(operation.query))
        for mode in (m for m in modes if negatable or m is GenerationMode.POSITIVE):

            @settings(
                max_examples=examples,
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


def main(argv: list[str]) -> int:
    base_url, examples, *runs = argv
    # schemathesis's own strategy for some schemas draws from `random` (its code, not ours).
    warnings.filterwarnings(
        "ignore", "Do not use the `random` module", HypothesisDeprecationWarning
    )
    document = httpx.get(f"{base_url}/openapi.json", timeout=30).json()
    schema = schemathesis.openapi.from_dict(document)
    calls = 0
    for run in runs:
        token, modes = run.rsplit(":", 1)
        wanted = [GenerationMode(m) for m in modes.split(",")]
        calls += fuzz(schema, base_url, token, wanted, int(examples))
    print(calls)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
