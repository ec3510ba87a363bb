/** LangGraph.js's filter and namespace-match semantics, as its InMemoryStore applies them (so a
 * MemhiveStore answers the same): the operators $eq $ne $gt $gte $lt $lte $in $nin, prefix and
 * suffix conditions with the "*" wildcard. Where InMemoryStore compares with `===`, objects and
 * lists are compared by value, as the Python store (and PostgresStore's JSON containment) do:
 * `===` would make a filter naming a list match nothing. An unknown operator is refused, as
 * in the Python store, rather than matching nothing in silence. */

import type { MatchCondition } from "@langchain/langgraph-checkpoint";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function matchesFilter(value: Record<string, unknown>, wanted?: Record<string, unknown>): boolean {
  return !wanted || Object.entries(wanted).every(([k, v]) => compare(value[k], v));
}

function compare(itemValue: unknown, filterValue: unknown): boolean {
  if (isObject(filterValue)) {
    const entries = Object.entries(filterValue);
    if (entries.some(([k]) => k.startsWith("$"))) {
      return entries.every(([op, v]) => operator(itemValue, op, v));
    }
    return isObject(itemValue) && entries.every(([k, v]) => compare(itemValue[k], v));
  }
  if (Array.isArray(filterValue)) {
    return (
      Array.isArray(itemValue) &&
      itemValue.length === filterValue.length &&
      filterValue.every((f, i) => compare(itemValue[i], f))
    );
  }
  return itemValue === filterValue;
}

function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(b)) {
    return Array.isArray(a) && a.length === b.length && b.every((x, i) => equal(a[i], x));
  }
  if (isObject(b)) {
    const keys = Object.keys(b);
    return isObject(a) && Object.keys(a).length === keys.length && keys.every((k) => equal(a[k], b[k]));
  }
  return a === b;
}

function operator(value: unknown, op: string, wanted: unknown): boolean {
  if (!OPERATORS.has(op)) throw new Error(`Unsupported operator: ${op}`);
  switch (op) {
    case "$eq":
      return equal(value, wanted);
    case "$ne":
      return !equal(value, wanted);
    case "$gt":
      return Number(value) > Number(wanted);
    case "$gte":
      return Number(value) >= Number(wanted);
    case "$lt":
      return Number(value) < Number(wanted);
    case "$lte":
      return Number(value) <= Number(wanted);
    case "$in":
      return Array.isArray(wanted) && wanted.some((w) => equal(value, w));
    default: // $nin
      return !Array.isArray(wanted) || !wanted.some((w) => equal(value, w));
  }
}

export function matchesCondition(namespace: readonly string[], condition: MatchCondition): boolean {
  const { matchType, path } = condition;
  if (namespace.length < path.length) return false;
  if (matchType !== "prefix" && matchType !== "suffix") {
    throw new Error(`Unsupported match type: ${String(matchType)}`);
  }
  const offset = matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((p, i) => p === "*" || namespace[offset + i] === p);
}
