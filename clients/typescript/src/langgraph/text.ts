/** The text an item is recalled by: LangGraph's index fields ("text", "facts[*].fact",
 * "{title,body}"; "$" the whole value) read as LangGraph reads them, written as the Python
 * store writes them (objects as Python's sorted JSON, booleans "True"/"False"), so both stores
 * give an item the same text and the same digest. */

import { pyJson, pyNumber } from "./pyjson.js";

export const MAX_BODY = 4000; // a memory's body; the entry keeps the whole value

export type Fields = Array<[path: string, tokens: string[]]>;

export function tokenized(paths: string[]): Fields {
  return paths.map((p) => [p, p === "$" ? ["$"] : tokenizePath(p)]);
}

/** The item's text, or null when it has none (index false, or its fields are empty). */
export function textOf(value: Record<string, unknown>, fields: Fields): string | null {
  const texts: string[] = [];
  for (const [path, tokens] of fields) {
    if (path === "$") texts.push(dumps(value));
    else texts.push(...textsAt(value, tokens).filter((t) => t));
  }
  const text = texts
    .filter((t) => t.trim())
    .join("\n")
    .trim();
  return cut(text, MAX_BODY) || null;
}

/** Python's str slice: code points, not UTF-16 units. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : [...text].slice(0, max).join("");
}

const dumps = (v: unknown) => pyJson(v, { sortKeys: true, ensureAscii: false });

function leaf(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (typeof v === "number") return [pyNumber(v)];
  if (typeof v === "boolean") return [v ? "True" : "False"];
  if (v !== null && typeof v === "object") return [dumps(v)];
  return [];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** LangGraph's get_text_at_path (Python's and LangGraph.js's are the same walk). */
export function textsAt(obj: unknown, tokens: string[], pos = 0): string[] {
  if (pos >= tokens.length) return leaf(obj);
  const token = tokens[pos]!;
  const results: string[] = [];
  if (token.startsWith("[") && token.endsWith("]")) {
    if (!Array.isArray(obj)) return [];
    const index = token.slice(1, -1);
    if (index === "*") {
      for (const item of obj) results.push(...textsAt(item, tokens, pos + 1));
    } else if (/^\s*[-+]?\d+\s*$/.test(index)) {
      let i = parseInt(index, 10);
      if (i < 0) i += obj.length;
      if (i >= 0 && i < obj.length) results.push(...textsAt(obj[i], tokens, pos + 1));
    }
  } else if (token.startsWith("{") && token.endsWith("}")) {
    if (!isObject(obj)) return [];
    for (const field of token.slice(1, -1).split(",").map((f) => f.trim())) {
      const nested = tokenizePath(field);
      if (!nested.length) continue;
      let current: unknown = obj;
      for (const name of nested) {
        current = isObject(current) && name in current ? current[name] : undefined;
        if (current === undefined) break;
      }
      if (current !== undefined && current !== null) results.push(...leaf(current));
    }
  } else if (token === "*") {
    const values = Array.isArray(obj) ? obj : isObject(obj) ? Object.values(obj) : [];
    for (const value of values) results.push(...textsAt(value, tokens, pos + 1));
  } else if (isObject(obj) && token in obj) {
    results.push(...textsAt(obj[token], tokens, pos + 1));
  }
  return results;
}

/** "a.b[*].c" -> ["a", "b", "[*]", "c"]; "{x,y.z}" stays one token. */
export function tokenizePath(path: string): string[] {
  const tokens: string[] = [];
  let current = "";
  for (let i = 0; i < path.length; ) {
    const c = path[i]!;
    if (c === "[" || c === "{") {
      if (current) tokens.push(current);
      current = "";
      const close = c === "[" ? "]" : "}";
      let depth = 1;
      let group = c;
      for (i += 1; i < path.length && depth > 0; i += 1) {
        if (path[i] === c) depth += 1;
        else if (path[i] === close) depth -= 1;
        group += path[i];
      }
      tokens.push(group);
      continue;
    }
    if (c === ".") {
      if (current) tokens.push(current);
      current = "";
    } else {
      current += c;
    }
    i += 1;
  }
  if (current) tokens.push(current);
  return tokens;
}
