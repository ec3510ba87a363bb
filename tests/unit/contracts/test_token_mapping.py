"""Token requests on the bus: records and refusals survive the trip, so the gateway raises
what the responder raised (and answers the same HTTP status)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memhive_contracts.token_mapping import (
    TokenRequestFailed,
    done,
    raise_refusal,
    record_from_pb,
    refusal,
)
from memhive_domain.errors import (
    FieldProblem,
    InvalidInput,
    NotAllowed,
    NotFound,
    Unauthenticated,
)
from memhive_domain.principals import Role
from memhive_domain.tokens import TokenRecord

AT = datetime(2026, 11, 24, 1, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "record",
    [
        TokenRecord("0123456789abcdef", "ws", "bot", Role.AGENT),
        TokenRecord(
            "0123456789abcdef",
            "ws",
            "bot",
            Role.VIEWER,
            "ci",
            "product:ios",
            "ada",
            AT,
            "root",
            AT,
            AT,
        ),  # fmt: skip
    ],
)
def test_a_record_round_trips(record: TokenRecord) -> None:
    answer = done(record, "mh_secret")
    assert record_from_pb(answer.token) == record and answer.secret == "mh_secret"
    raise_refusal(answer)  # a success raises nothing


@pytest.mark.parametrize(
    "error",
    [
        Unauthenticated("unknown token"),
        NotAllowed("only workspace admins may manage_tokens"),
        NotFound("token", "0123456789abcdef"),
    ],
)
def test_a_refusal_comes_back_as_the_same_error(error: Exception) -> None:
    with pytest.raises(type(error)) as raised:
        raise_refusal(refusal(error))
    assert str(raised.value) == str(error)


def test_invalid_input_keeps_every_field() -> None:
    problems = [FieldProblem("home", "a path"), FieldProblem("role", "one of ...")]
    with pytest.raises(InvalidInput) as raised:
        raise_refusal(refusal(InvalidInput(problems)))
    assert raised.value.problems == problems


def test_an_unexpected_failure_does_not_leak_its_message() -> None:
    answer = refusal(RuntimeError("kv at 10.0.0.7 said no"))
    assert "10.0.0.7" not in answer.reason
    with pytest.raises(TokenRequestFailed, match="RuntimeError"):
        raise_refusal(answer)
