"""Schemathesis over a live gateway, in a Python process of its own.

`test_api_fuzzing` starts this module: the fuzzing must not share an interpreter with the
stack. CPython 3.11's AST conversion keeps its recursion depth in interpreter-wide state
(gh-106905), so hypothesis parsing a strategy's source in one thread while another thread
parses or compiles an AST (pytest rewriting a module on import) fails at random with
"SystemError: AST constructor recursion depth mismatch".

    python -m tests.integration.stack.fuzz_runner URL EXAMPLES TOKEN:MODES [TOKEN:MODES ...]

MODES is `positive` or `positive,negative`. Prints the number of requests made; exits 1
with hypothesis's report when a check failed.

Besides "no server error" and "answers as documented", schemathesis's acceptance checks run:
a request the document calls valid is not refused as invalid (positive data), and one it
calls invalid is refused (negative data). The document states every rule a JSON schema can
(request_types.py); `keep_unstated_rules` keeps valid cases valid under the few it cannot,
each of which the document says in words: an expiry in the future, a range's `after` before
its `before`, a moment that exists in UTC, `scope`/`product_id`/`scope_path` agreeing, a
cursor this API issued, an edge between two memories, a key/value write's one precondition.
"""

from __future__ import annotations

import json
import sys
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import HypothesisDeprecationWarning, Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
]
BOUNDS = (("created_after", "created_before"), ("occurred_after", "occurred_before"))
BOUNDS += (("since", "until"),)
MOMENTS = {name for pair in BOUNDS for name in pair} | {"occurred_at", "expires_at"}
MAX_REVISION = 2**53 - 1


def fuzz(schema, base_url: str, token: str, modes: list[GenerationMode], examples: int) -> int:
    """Runs every operation in every mode; returns how many requests were made."""
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
                if case.meta.generation.mode.is_positive:
                    keep_unstated_rules(case)
                response = case.call(base_url=base_url, headers=auth(case, token), timeout=30)
                case.validate_response(response, checks=checks_for(case))

            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing to negate (e.g. /healthz)
    return calls


def checks_for(case) -> list:
    """A text/plain body (an import's file) is text whatever type a negative case gives it:
    on the wire such a case is a valid one, so it is not judged as invalid."""
    mutations = getattr(case.meta.phase.data, "mutations", None) or []
    retyped = any(m.parameter_location.name == "BODY" and "type" in m.keywords for m in mutations)
    if retyped and str(case.media_type).startswith("text/plain"):
        return [check for check in CHECKS if check is not negative_data_rejection]
    return CHECKS


def auth(case, token: str) -> dict[str, str]:
    """The caller's token, unless the case is about a missing or malformed one."""
    mutations = getattr(case.meta.phase.data, "mutations", None) or []
    if any(m.parameter == "Authorization" for m in mutations):
        return {}
    return {"Authorization": f"Bearer {token}"}


def keep_unstated_rules(case) -> None:
    """Repairs a valid case that breaks a rule the document states in words only."""
    for part in (case.body, case.query):
        if isinstance(part, dict):
            _moments(part)
            _node(part)
            part.pop("cursor", None)  # only one this API issued
    if isinstance(case.body, dict):
        _edge(case.body)
        _token(case.body)
    _key_value(case)
    _import_file(case)
    if case.path_parameters and case.path_parameters.get("scope") == "product":
        case.query = (case.query or {}) | {"product_id": "p1"}  # a bulletin's product
    if case.operation.path.startswith("/v1/bulletins/") and isinstance(case.query, dict):
        case.query.pop("scope_path", None)  # the path names the node
        if case.path_parameters.get("scope") != "product":
            case.query.pop("product_id", None)


def _moments(part: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    for name in MOMENTS & part.keys():
        moment = _utc(part[name])
        if moment is None:
            part[name] = "2026-01-01T00:00:00Z"  # it must exist in UTC
        future = now + timedelta(minutes=5) < (_utc(part[name]) or now) < now + timedelta(3000)
        if name == "expires_at" and part[name] is not None and not future:
            part[name] = (now + timedelta(days=1)).isoformat()  # future, within 10 years
    for after, before in BOUNDS:
        low, high = _utc(part.get(after)), _utc(part.get(before))
        if low is not None and high is not None and low >= high:
            part.pop(before)  # after < before


def _utc(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None


def _node(part: dict[str, Any]) -> None:
    """scope_path wins and the others must agree with it: keep it alone; `product` needs a
    product_id and `global` takes none."""
    if part.get("scope_path"):
        part.pop("scope", None)
        part.pop("product_id", None)
    elif part.get("scope") == "product" and not part.get("product_id"):
        part.pop("scope")
    elif part.get("scope") == "global" and part.get("product_id"):
        part.pop("product_id")


def _edge(body: dict[str, Any]) -> None:
    if "src_id" in body and body.get("src_id") == body.get("dst_id"):
        body["dst_id"] = str(uuid.uuid4())  # no memory links itself
    ids = body.get("ids")
    if isinstance(ids, list) and len(ids) >= 2 and len(set(ids)) < 2:
        body["ids"] = [*ids, str(uuid.uuid4())][-20:]  # consolidate: two different memories


def _token(body: dict[str, Any]) -> None:
    # schemathesis draws `[^\p{C}\p{Z}]` from the controls only, not the unassigned
    if isinstance(body.get("name"), str) and not body["name"].isprintable():
        body.pop("name")
    if body.get("expires_in") and body.get("expires_at"):
        body.pop("expires_at")  # one of the two
    for name, most in (("expires_in", timedelta(days=3650)), ("grace", timedelta(days=30))):
        if body.get(name) and _duration(body[name]) > most:
            body.pop(name)


def _duration(text: str) -> timedelta:
    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    return timedelta(**{units[text[-1]]: int(text[:-1])})


def _key_value(case) -> None:
    """One precondition (revision, If-Match or create-only), a revision that exists
    (1..2^53-1), a value of at most 16 KiB and 16 levels."""
    if not case.operation.path.startswith("/v1/kv/"):
        return
    body = case.body if isinstance(case.body, dict) else {}
    revision = body.get("revision", (case.query or {}).get("revision"))
    headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "if-match"}
    if_match = next((v for k, v in (case.headers or {}).items() if k.lower() == "if-match"), None)
    digits = str(if_match).removeprefix("W/").strip('"')
    if if_match is not None and revision is None and (digits == "*" or _revision(digits)):
        headers["If-Match"] = if_match  # kept: the one precondition
    if revision is not None or "If-Match" in headers:
        body.pop("create_only", None)
        headers = {k: v for k, v in headers.items() if k.lower() != "if-none-match"}
    case.headers = headers
    if "value" in body and (
        len(json.dumps(body["value"]).encode()) > 16 * 1024 or _depth(body["value"]) > 16
    ):
        body["value"] = 1


def _revision(digits: str) -> bool:
    return digits.isdigit() and 0 < int(digits) <= MAX_REVISION


def _import_file(case) -> None:
    """A file must be of its format (memhive's export, mem0's JSON): their grammars are in
    words; any text is a Markdown file."""
    if case.operation.path == "/v1/import":
        query = case.query = {k: v for k, v in (case.query or {}).items() if k != "path"}
        query["format"] = "markdown"


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


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
