"""A vendored CRD as a JSON Schema that refuses unknown fields, as `kubectl apply` does.

A CRD's structural schema lets the API server prune unknown fields; `kubectl apply` with
strict field validation (its default) makes each field that would be pruned an error. So
every object schema that lists its `properties` gets `additionalProperties: false`, unless it
declares its own `additionalProperties` or preserves unknown fields
(deploy/k8s/schemas/README.md, "Strict, on purpose").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import yaml

_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")


@dataclass(frozen=True)
class CustomResource:
    api_version: str  # group/version, as an object's apiVersion names it
    kind: str
    schema: dict  # the strict JSON Schema of that version


def vendored_crd(path: Path, version: str) -> CustomResource:
    crd = yaml.safe_load(path.read_text())
    spec = crd["spec"]
    [served] = [v for v in spec["versions"] if v["name"] == version and v["served"]]
    schema = copy.deepcopy(served["schema"]["openAPIV3Schema"])
    return CustomResource(f"{spec['group']}/{version}", spec["names"]["kind"], strict(schema))


def strict(node: dict) -> dict:
    """`node` with unknown fields refused wherever it lists its fields (in place)."""
    open_ended = "additionalProperties" in node or node.get("x-kubernetes-preserve-unknown-fields")
    if "properties" in node and not open_ended:
        node["additionalProperties"] = False
    for child in node.get("properties", {}).values():
        strict(child)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            strict(node[key])
    for key in _SUBSCHEMA_LISTS:
        for child in node.get(key, []):
            strict(child)
    return node
