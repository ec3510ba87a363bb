/** JSON written as Python's `json.dumps` writes it (", " and ": " between items, keys sorted
 * on request, non-ASCII escaped on request): the Python store hashes and digests such text,
 * so the TypeScript store must produce the same bytes to find the same entries. */

export interface PyJsonOptions {
  sortKeys?: boolean;
  /** Python's default: every character outside printable ASCII as \uXXXX */
  ensureAscii?: boolean;
}

export function pyJson(value: unknown, options: PyJsonOptions = {}): string {
  const { sortKeys = false, ensureAscii = true } = options;
  const write = (v: unknown): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "string") return pyString(v, ensureAscii);
    if (typeof v === "number") return pyNumber(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    if (Array.isArray(v)) return `[${v.map(write).join(", ")}]`;
    if (typeof v === "object") {
      const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
      if (sortKeys) keys.sort();
      const pairs = keys.map((k) => `${pyString(k, ensureAscii)}: ${write((v as Record<string, unknown>)[k])}`);
      return `{${pairs.join(", ")}}`;
    }
    return "null";
  };
  return write(value);
}

/** A number as Python writes one read from JSON. Integers agree; a few floats do not (Python
 * writes 1e-05 where JavaScript writes 0.00001): such a text's digest then differs, and the
 * other store only re-writes the item's memory. */
export function pyNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  return String(n);
}

function pyString(s: string, ensureAscii: boolean): string {
  const quoted = JSON.stringify(s); // escapes ", \ and control characters as Python does
  if (!ensureAscii) return quoted;
  // JSON.stringify leaves DEL and non-ASCII as they are; Python escapes each UTF-16 unit.
  return quoted.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
