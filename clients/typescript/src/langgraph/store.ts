/** MemhiveStore: LangGraph.js's long-term memory store (`BaseStore`) kept in memhive, the same
 * mapping as the Python store's (memhive_client.langgraph; the table is in
 * docs/architecture.md, "LangGraph store"), so the two read and write the same items:
 *
 * - a namespace's leading labels `product:<id>`, `team:<id>`, `agent:<id>` (in that order)
 *   name a node of the scope tree below the store's `scopePath`; the other labels are a
 *   collection at that node (a namespace without tree labels lives at `scopePath` itself);
 * - an item is a key/value entry at its node (`lg.<hash of namespace and key>`): namespace,
 *   key, value, created_at, updated_at, read back exactly;
 * - the item's text (the index fields; default the whole value as JSON) is also a memory at
 *   the node (kind `fact`, tagged `langgraph` and once per namespace prefix, `source_ref`
 *   naming the entry), so `search(..., { query })` is memhive's hybrid recall;
 *   `put(..., false)` keeps the entry only; `delete` deletes it and forgets the memory.
 *
 * Answers follow LangGraph.js's InMemoryStore: a batch's reads see the store as it was before
 * the batch's writes, the last write of a key wins. Differences: scores are recall's fused
 * scores, not cosines (they rank one query's items, nothing across queries); a query returns
 * at most 20 items, and only items that have a text (InMemoryStore appends the unindexed ones);
 * a namespace whose items were all deleted is no longer listed; labels may hold ':' (the tree
 * labels do; LangGraph.js 1.2 refuses it because InMemoryStore joins labels with it);
 * namespaces are listed sorted label by label (InMemoryStore: their ':'-joined names by
 * localeCompare, the same order for plain labels). */

import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";

import { type ClientOptions, MemhiveClient } from "../client.js";
import { Conflict, NotFound } from "../errors.js";
import { matchesCondition, matchesFilter } from "./matching.js";
import {
  couldHold,
  ITEM_PREFIX,
  itemAddress,
  NODES_KEY,
  type Placement,
  placement,
  prefixTag,
  sha256,
  sourceRef,
  tagsOf,
} from "./namespaces.js";
import { type Fields, textOf, tokenized } from "./text.js";
import { validateNamespace } from "./validate.js";

const MAX_RECALL = 20;

export interface MemhiveStoreOptions extends ClientOptions {
  /** a client of your own (else one is made from the other options) */
  client?: MemhiveClient;
  /** the node of the scope tree the store's namespaces live below (default "global") */
  scopePath?: string;
  /** the text items are recalled by: LangGraph's paths ("text", "facts[*].fact"; default
   * "$", the whole value). memhive embeds it: no dims or embeddings to give. */
  index?: { fields?: string[] };
}

/** An item's key/value entry, as the Python store writes it too. */
interface Entry {
  namespace: string[];
  key: string;
  value: Record<string, any>;
  created_at: string;
  updated_at: string;
  memory_id: string | null;
  text_digest: string | null;
  /** only a Python store's items have one (LangGraph.js has no TTLs) */
  ttl_minutes?: number | null;
}

interface Read {
  place: Placement;
  entry: Entry;
}

type Options = { limit?: number; offset?: number };
const ANY = { allowEmpty: true, allowReservedRoot: true };

export class MemhiveStore extends BaseStore {
  readonly client: MemhiveClient;
  readonly scopePath: string;
  readonly fields: Fields;

  constructor(options: MemhiveStoreOptions = {}) {
    super();
    const { client, scopePath = "global", index, ...clientOptions } = options;
    this.client = client ?? new MemhiveClient(clientOptions);
    this.scopePath = scopePath;
    this.fields = tokenized(index?.fields?.length ? index.fields : ["$"]);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return (await new Batch(this).run(operations)) as OperationResults<Op>;
  }

  // BaseStore's own methods, with its checks but for ':' in labels (see above).

  override async get(namespace: string[], key: string): Promise<Item | null> {
    validateNamespace(namespace, ANY);
    return (await this.batch<[GetOperation]>([{ namespace, key }]))[0];
  }

  override async search(
    namespacePrefix: string[],
    options: { filter?: Record<string, any>; query?: string } & Options = {},
  ): Promise<SearchItem[]> {
    validateNamespace(namespacePrefix, ANY);
    const { filter, limit = 10, offset = 0, query } = options;
    const op: SearchOperation = { namespacePrefix, filter, limit, offset, query };
    return (await this.batch<[SearchOperation]>([op]))[0];
  }

  override async put(
    namespace: string[],
    key: string,
    value: Record<string, any>,
    index?: false | string[],
  ): Promise<void> {
    validateNamespace(namespace);
    await this.batch<[PutOperation]>([{ namespace, key, value, index }]);
  }

  override async delete(namespace: string[], key: string): Promise<void> {
    validateNamespace(namespace, ANY);
    await this.batch<[PutOperation]>([{ namespace, key, value: null }]);
  }

  override async listNamespaces(
    options: { prefix?: string[]; suffix?: string[]; maxDepth?: number } & Options = {},
  ): Promise<string[][]> {
    const { prefix, suffix, maxDepth, limit = 100, offset = 0 } = options;
    const matchConditions: MatchCondition[] = [];
    for (const [matchType, path] of [["prefix", prefix], ["suffix", suffix]] as const) {
      if (!path) continue;
      validateNamespace(path, ANY);
      matchConditions.push({ matchType, path });
    }
    const op: ListNamespacesOperation = {
      matchConditions: matchConditions.length ? matchConditions : undefined,
      maxDepth,
      limit,
      offset,
    };
    return (await this.batch<[ListNamespacesOperation]>([op]))[0];
  }
}

/** One batch: reads first (they see the store as it was), then the writes, the last write of
 * a key winning, as InMemoryStore does. */
class Batch {
  private readonly client: MemhiveClient;
  private readonly root: string;

  constructor(private readonly store: MemhiveStore) {
    this.client = store.client;
    this.root = store.scopePath;
  }

  async run(ops: readonly Operation[]): Promise<unknown[]> {
    const puts = ops.filter(isPut);
    // Refused before anything is read or written, as InMemoryStore refuses them.
    for (const op of puts) validateNamespace(op.namespace, { allowReservedRoot: true });
    const results = await Promise.all(ops.map((op) => this.read(op)));
    const writes = new Map<string, PutOperation>();
    for (const op of puts) writes.set(JSON.stringify([op.namespace, op.key]), op);
    for (const op of writes.values()) {
      await (op.value === null ? this.delete(op) : this.put(op, op.value));
    }
    return results;
  }

  private async read(op: Operation): Promise<unknown> {
    if ("namespacePrefix" in op) return this.search(op);
    if (isPut(op)) return undefined;
    if ("key" in op && "namespace" in op) {
      const entry = await this.entry(await placement(op.namespace, op.key, this.root));
      return entry && item(entry);
    }
    if ("limit" in op || "matchConditions" in op) return this.namespaces(op);
    throw new Error(`Unknown operation: ${JSON.stringify(op)}`);
  }

  // --- reads ------------------------------------------------------------------------------

  private async entry(place: Placement): Promise<Entry | null> {
    try {
      return (await this.client.getState(place.node, place.kvKey)).value as Entry;
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
  }

  private async search(op: SearchOperation): Promise<SearchItem[]> {
    const [offset, limit] = [op.offset ?? 0, op.limit ?? 10];
    if (op.query) return (await this.recalled(op)).slice(offset, offset + limit);
    const found = (await this.entries(op.namespacePrefix)).filter((r) => matchesFilter(r.entry.value, op.filter));
    return inStoreOrder(found)
      .slice(offset, offset + limit)
      .map((r) => item(r.entry));
  }

  /** Recall filtered by the prefix's tag; each hit leads back to its entry, kept when the
   * entry still names that memory (an item changed or deleted since is not answered). */
  private async recalled(op: SearchOperation): Promise<SearchItem[]> {
    const tag = await prefixTag(this.root, op.namespacePrefix);
    const hits = await this.client.recall({ query: op.query!, tags: [tag], max_results: MAX_RECALL });
    const found = await Promise.all(
      hits.map(async (hit) => {
        const place = itemAddress(hit.source_ref);
        const entry = place && (await this.entry(place));
        if (!entry || entry.memory_id !== hit.id || !matchesFilter(entry.value, op.filter)) return null;
        return { ...item(entry), score: hit.score };
      }),
    );
    return found.filter((f) => f !== null);
  }

  /** Every item whose namespace starts with `prefix`, from the nodes that may hold it. */
  private async entries(prefix: readonly string[]): Promise<Read[]> {
    const nodes = (await this.nodes()).filter((node) => couldHold(node, prefix, this.root));
    const found: Read[] = [];
    for (const node of nodes) {
      for await (const kv of this.client.iterState(node, { includeValues: true })) {
        const entry = kv.value as Entry;
        const ours = kv.key.startsWith(ITEM_PREFIX) && typeof entry === "object" && entry !== null;
        if (ours && prefix.every((label, i) => entry.namespace[i] === label)) {
          found.push({ place: { node, kvKey: kv.key }, entry });
        }
      }
    }
    return found;
  }

  private async namespaces(op: ListNamespacesOperation): Promise<string[][]> {
    let seen = unique((await this.entries([])).map((r) => r.entry.namespace));
    const conditions = op.matchConditions ?? [];
    seen = seen.filter((ns) => conditions.every((c) => matchesCondition(ns, c)));
    if (op.maxDepth !== undefined) seen = unique(seen.map((ns) => ns.slice(0, op.maxDepth)));
    const offset = op.offset ?? 0;
    return seen.sort(byLabels).slice(offset, offset + (op.limit ?? seen.length));
  }

  private async nodes(): Promise<string[]> {
    try {
      const known = (await this.client.getState(this.root, NODES_KEY)).value as { nodes?: string[] };
      return [...(known.nodes ?? [])];
    } catch (error) {
      if (error instanceof NotFound) return [];
      throw error;
    }
  }

  // --- writes -----------------------------------------------------------------------------

  private async put(op: PutOperation, value: Record<string, any>): Promise<void> {
    const place = await placement(op.namespace, op.key, this.root);
    const before = await this.entry(place);
    const now = isoNow();
    const created = before ? before.created_at : now;
    const fields = op.index === false ? [] : op.index ? tokenized(op.index) : this.store.fields;
    const text = textOf(value, fields);
    const memoryId = await this.memory(op, place, before, text, created);
    const entry: Entry = {
      namespace: [...op.namespace],
      key: op.key,
      value,
      created_at: created,
      updated_at: now,
      memory_id: memoryId,
      text_digest: await digest(text), // the text itself is the memory's body
      ttl_minutes: null,
    };
    await this.client.setState(place.node, place.kvKey, entry);
    await this.rememberNode(place.node);
  }

  /** The item's memory: kept when its text did not change, re-written when it did. */
  private async memory(
    op: PutOperation,
    place: Placement,
    before: Entry | null,
    text: string | null,
    created: string,
  ): Promise<string | null> {
    const old = before?.memory_id ?? null;
    // A Python store may have given the item a TTL: this put has none, so neither has its memory.
    const expiring = before?.ttl_minutes != null ? { expires_at: null } : undefined;
    if (old && before?.text_digest === (await digest(text))) {
      if (expiring) await ignoring(NotFound, () => this.client.update(old, expiring));
      return old;
    }
    if (old && text) {
      const changed = await this.client.update(old, { body: text, force: true, wait: "indexed", ...expiring });
      return changed.memory.id;
    }
    if (old) await this.forget(old);
    if (!text) return null;
    const saved = await this.client.save({
      kind: "fact",
      body: text,
      scope_path: place.node,
      tags: await tagsOf(this.root, op.namespace),
      source_ref: sourceRef(place),
      // Two items with the same text stay two memories: a memory that says when it happened
      // is another occurrence (memhive's content id includes occurred_at).
      occurred_at: created,
      force: true,
      wait: "indexed",
    });
    return saved.id;
  }

  private async delete(op: PutOperation): Promise<void> {
    const place = await placement(op.namespace, op.key, this.root);
    const before = await this.entry(place);
    if (!before) return;
    if (before.memory_id) await this.forget(before.memory_id);
    await ignoring(NotFound, () => this.client.deleteState(place.node, place.kvKey));
  }

  private async forget(memoryId: string): Promise<void> {
    await ignoring(NotFound, () => this.client.forget(memoryId, "indexed")); // forgotten already
  }

  /** The nodes the store wrote to, kept at its root so listings know where to look;
   * compare-and-set, so concurrent stores add their nodes without losing one. */
  private async rememberNode(node: string): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      let current: { revision: number; value?: unknown } | null = null;
      try {
        current = await this.client.getState(this.root, NODES_KEY);
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
      }
      const nodes = [...((current?.value as { nodes?: string[] } | undefined)?.nodes ?? [])];
      if (nodes.includes(node)) return;
      const guard = current ? { revision: current.revision } : { create_only: true };
      try {
        await this.client.setState(this.root, NODES_KEY, { nodes: [...nodes, node].sort() }, guard);
        return;
      } catch (error) {
        if (!(error instanceof Conflict)) throw error; // else a concurrent writer moved it on
      }
    }
    throw new Error(`could not record node ${node} in ${NODES_KEY}`);
  }
}

const isPut = (op: Operation): op is PutOperation => "value" in op && "namespace" in op;

function item(entry: Entry): Item {
  return {
    value: entry.value,
    key: entry.key,
    namespace: [...entry.namespace],
    createdAt: new Date(entry.created_at),
    updatedAt: new Date(entry.updated_at),
  };
}

/** As InMemoryStore lists: namespace by namespace, in the order each got its first item, then
 * its items in the order they were created. (The times are UTC ISO strings, which sort as
 * times.) */
function inStoreOrder(reads: Read[]): Read[] {
  const first = new Map<string, string>();
  const nsKey = (r: Read) => JSON.stringify(r.entry.namespace);
  for (const r of reads) {
    const seen = first.get(nsKey(r));
    if (seen === undefined || r.entry.created_at < seen) first.set(nsKey(r), r.entry.created_at);
  }
  const rank = (r: Read): [string, string] => [first.get(nsKey(r))!, r.entry.created_at];
  return [...reads].sort((a, b) => byLabels(rank(a), rank(b)));
}

function unique(namespaces: string[][]): string[][] {
  return [...new Map(namespaces.map((ns) => [JSON.stringify(ns), ns])).values()];
}

/** Label by label, by code unit, a shorter namespace before the ones it begins (Python's order
 * of tuples, so both stores list alike). */
function byLabels(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

const digest = async (text: string | null) => (text === null ? null : sha256(text));

async function ignoring<T>(kind: typeof NotFound, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof kind) return undefined;
    throw error;
  }
}

let lastMicros = 0;

/** Now, as the Python store writes times (microseconds, "+00:00"), and strictly after the last
 * time this process wrote, so items put in the same millisecond keep their order. */
function isoNow(): string {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString(); // ...T10:00:00.123Z
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, "0")}+00:00`;
}
