"""What a request's own types accept: a moment is a date-time, never a number of seconds."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re

import memhive_query
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memhive_query import request_types
from memhive_query.schemas import KvPutRequest
from pydantic import BaseModel, TypeAdapter, ValidationError

MOMENT = TypeAdapter(request_types.Moment)


@given(st.text(alphabet="0123456789.+-eE x", max_size=24))
@example("448")
@example(" -1.5e3 ")
@example("1." + "1" * 20 + "x")
def test_a_number_is_told_as_the_pattern_did(text: str) -> None:
    """The pattern that told numbers let a run of digits split every way between two of
    its parts (16,000 digits and a letter: 13 s); the one kept reads the same strings."""
    was = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")

    assert bool(request_types._NUMBER.fullmatch(text)) == bool(was.fullmatch(text))


@pytest.mark.parametrize("number", [448, 1.5, "448", " 1e3 "])
def test_a_number_is_not_a_moment(number: object) -> None:
    with pytest.raises(ValidationError, match="ISO 8601"):
        MOMENT.validate_python(number)


# Every JSON body a route takes: the models named *Request in the gateway's package.
def request_models() -> list[type[BaseModel]]:
    for module in pkgutil.walk_packages(memhive_query.__path__, "memhive_query."):
        importlib.import_module(module.name)
    found, todo = set(), [BaseModel]
    while todo:
        for model in todo.pop().__subclasses__():
            todo.append(model)
            if model.__module__.startswith("memhive_query.") and model.__name__.endswith("Request"):
                found.add(model)
    return sorted(found, key=lambda m: m.__name__)


def scalar_fields(model: type[BaseModel]) -> list[tuple[str, str]]:
    """(field, JSON type) of each boolean, integer or number field, alone or with null."""
    fields = []
    for name, schema in model.model_json_schema()["properties"].items():
        types = {s.get("type") for s in schema.get("anyOf", [schema])} - {"null"}
        if len(types) == 1 and (kind := types.pop()) in ("boolean", "integer", "number"):
            fields.append((name, kind))
    return fields


SCALARS = [(m, name, kind) for m in request_models() for name, kind in scalar_fields(m)]
# What a lax reading would turn into a value of the field's type.
NOT_OF_TYPE = {
    "boolean": st.one_of(
        st.integers(),
        st.floats(allow_nan=False),
        st.sampled_from(["true", "false", "yes", "no", "on", "off", "1", "0", "t", "f"]),
    ),
    "integer": st.one_of(
        st.booleans(),
        st.integers().map(str),
        st.floats().filter(lambda f: not f.is_integer()),  # 19.0 is JSON Schema's integer
    ),
    "number": st.one_of(st.booleans(), st.floats(0, 1).map(str), st.sampled_from(["1", "0"])),
}


def test_every_body_with_such_fields_is_found() -> None:
    names = {(m.__name__, name) for m, name, _ in SCALARS}
    assert {
        ("SaveRequest", "force"),
        ("KvPutRequest", "ttl_s"),
        ("EdgeRequest", "weight"),
        ("RecallRequest", "max_results"),
    } <= names


@pytest.mark.parametrize(
    ("model", "name", "kind"), SCALARS, ids=lambda v: getattr(v, "__name__", v)
)
@given(data=st.data())
def test_a_field_sent_as_another_json_type_is_refused_naming_it(
    model: type[BaseModel], name: str, kind: str, data: st.DataObject
) -> None:
    """`"ttl_s": true` was read as a TTL of one second, `"force": "yes"` as true: a field of
    another JSON type than the document gives is a problem with that field, never a value."""
    wrong = data.draw(NOT_OF_TYPE[kind])
    for validate in (
        model.model_validate,
        lambda body: model.model_validate_json(json.dumps(body)),
    ):
        with pytest.raises(ValidationError) as refused:
            validate({name: wrong})
        assert (name,) in [e["loc"][:1] for e in refused.value.errors()]


@pytest.mark.parametrize(
    ("model", "name", "kind"), SCALARS, ids=lambda v: getattr(v, "__name__", v)
)
def test_a_field_of_its_own_json_type_is_taken(
    model: type[BaseModel], name: str, kind: str
) -> None:
    values = {"boolean": [True, False], "integer": [1, 1.0], "number": [1, 0.5]}[kind]
    for value in values:  # each within every such field's bounds
        with pytest.raises(ValidationError) as missing_others:
            model.model_validate({name: value, "an unknown field": 0})
        assert (name,) not in [e["loc"][:1] for e in missing_others.value.errors()]


def test_an_integer_sent_with_a_zero_fraction_is_that_integer() -> None:
    put = KvPutRequest.model_validate_json('{"value": 1, "ttl_s": 30.0}')
    assert put.ttl_s == 30 and type(put.ttl_s) is int
