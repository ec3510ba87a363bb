/** Where a LangGraph namespace lives in memhive: its node of the scope tree, its key/value
 * key, the tags that let recall find its items by namespace prefix. The same mapping as the
 * Python store's (memhive_client/langgraph/namespaces.py), byte for byte, so both stores read
 * and write the same entries. Pure functions but for the hashing, which WebCrypto makes async. */

import { pyJson } from "./pyjson.js";

export const ITEM_PREFIX = "lg."; // key/value keys of items (the rest of a node's keys are not ours)
export const NODES_KEY = "langgraph.nodes"; // at the store's root node: every node the store wrote
export const STORE_TAG = "langgraph";
const SEGMENT = /^(product|team|agent):[A-Za-z0-9][A-Za-z0-9._@:-]*$/;
const ORDER = ["product", "team", "agent"];

export interface Placement {
  node: string; // a scope-tree path, e.g. "product:ios/team:mobile"
  kvKey: string;
}

const level = (label: string) => ORDER.indexOf(label.split(":", 1)[0]!);

/** The namespace's leading tree labels ("product:ios", "team:mobile", "agent:bob", in that
 * order) below the store's root node; namespaces without them live at the root. */
export function nodeOf(namespace: readonly string[], root: string): string {
  const parts = root === "global" ? [] : root.split("/");
  let last = Math.max(-1, ...parts.map(level));
  for (const label of namespace) {
    if (!SEGMENT.test(label) || level(label) <= last) break;
    parts.push(label);
    last = level(label);
  }
  return parts.join("/") || "global";
}

export async function placement(namespace: readonly string[], key: string, root: string): Promise<Placement> {
  const digest = (await sha256(pyJson([namespace, key]))).slice(0, 40);
  return { node: nodeOf(namespace, root), kvKey: `${ITEM_PREFIX}${digest}` };
}

/** One tag per namespace prefix of an item (the empty one too) under the store's root: recall
 * filtered by it finds the items of every namespace below that prefix, and only this store's
 * (tags are lowercase and short, so root and prefix are hashed). */
export async function prefixTag(root: string, prefix: readonly string[]): Promise<string> {
  return `lg:${(await sha256(pyJson([root, ...prefix]))).slice(0, 24)}`;
}

/** The store's tag and every prefix's (at most 30 levels: memhive keeps 32 tags). */
export async function tagsOf(root: string, namespace: readonly string[]): Promise<string[]> {
  const levels = Array.from({ length: Math.min(namespace.length, 30) + 1 }, (_, n) => n);
  return [STORE_TAG, ...(await Promise.all(levels.map((n) => prefixTag(root, namespace.slice(0, n)))))];
}

/** Names the item a memory stands for, so a recall hit leads back to it. */
export const sourceRef = (place: Placement) => `langgraph:${place.node}|${place.kvKey}`;

export function itemAddress(ref: string | null | undefined): Placement | null {
  if (!ref || !ref.startsWith("langgraph:") || !ref.includes("|")) return null;
  const rest = ref.slice("langgraph:".length);
  const bar = rest.lastIndexOf("|");
  return { node: rest.slice(0, bar), kvKey: rest.slice(bar + 1) };
}

/** Whether items of namespaces starting with `prefix` may live at `node`: the prefix's own
 * node when a collection label follows its tree labels, else that node or one below it. */
export function couldHold(node: string, prefix: readonly string[], root: string): boolean {
  const wanted = nodeOf(prefix, root);
  if (prefix.length > depth(wanted) - depth(root)) return node === wanted;
  return node === wanted || wanted === "global" || node.startsWith(`${wanted}/`);
}

const depth = (path: string) => (path === "global" ? 0 : path.split("/").length);

export async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
