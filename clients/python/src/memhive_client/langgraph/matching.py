"""LangGraph's filter and namespace-match semantics, as its InMemoryStore applies them (so a
MemhiveStore answers the same): equality of values (nested objects and lists compared
element by element), the operators $eq $ne $gt $gte $lt $lte, prefix/suffix conditions with
the "*" wildcard."""

from __future__ import annotations

from typing import Any


def matches_filter(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return not wanted or all(_compare(value.get(k), v) for k, v in wanted.items())


def _compare(item_value: Any, filter_value: Any) -> bool:
    if isinstance(filter_value, dict):
        if any(k.startswith("$") for k in filter_value):
            return all(_operator(item_value, op, v) for op, v in filter_value.items())
        return isinstance(item_value, dict) and all(
            _compare(item_value.get(k), v) for k, v in filter_value.items()
        )
    if isinstance(filter_value, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(filter_value)
            and all(_compare(i, f) for i, f in zip(item_value, filter_value, strict=True))
        )
    return item_value == filter_value


def _operator(value: Any, operator: str, wanted: Any) -> bool:
    if operator == "$eq":
        return value == wanted
    if operator == "$ne":
        return value != wanted
    comparisons = {
        "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b,
    }
    if operator not in comparisons:
        raise ValueError(f"Unsupported operator: {operator}")
    return comparisons[operator](float(value), float(wanted))


def matches_condition(namespace: tuple[str, ...], match_type: str, path: tuple[str, ...]) -> bool:
    if len(namespace) < len(path):
        return False
    if match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {match_type}")
    return all(p == "*" or n == p for n, p in pairs)
