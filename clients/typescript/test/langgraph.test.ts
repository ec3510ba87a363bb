/** MemhiveStore (@memhive/client/langgraph) against a real memhive, answer for answer beside
 * LangGraph.js's own InMemoryStore: the same operations give the same items, values and
 * namespaces (what legitimately differs, times and scores, left out; the documented
 * differences asserted as such). InMemoryStore embeds with a toy bag-of-words encoder here, so
 * the queries share a word with the item they should find; memhive recalls with its own. */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";

import {
  type BaseStore,
  type IndexConfig,
  InMemoryStore,
  InvalidNamespaceError,
  type Item,
} from "@langchain/langgraph-checkpoint";

import { buildGraph, chat } from "../examples/langgraph_remember.js";
import { MemhiveClient, NotFound } from "../src/index.js";
import { MemhiveStore } from "../src/langgraph/index.js";
import { MEMHIVE_BIN, type RunningMemhive, startMemhive } from "./memhive.js";

let memhive: RunningMemhive;
let client: MemhiveClient;
let stores = 0;

before(async () => {
  memhive = await startMemhive();
  client = new MemhiveClient({ baseUrl: memhive.url, token: memhive.token });
});

after(async () => {
  await memhive?.stop();
});

const ALICE = ["users", "alice", "prefs"];
const BOB = ["users", "bob", "prefs"];

/** Each test its own root node of the scope tree, so tests do not see each other's items. */
function newStore(): MemhiveStore {
  stores += 1;
  return new MemhiveStore({ client, scopePath: `product:lg${stores}`, index: { fields: ["text"] } });
}

/** Words (their first four letters) hashed into 64 dimensions: enough for InMemoryStore to rank
 * an item that shares words with the query first. */
const words: IndexConfig["embeddings"] = {
  embedQuery: async (text: string) => bagOfWords(text),
  embedDocuments: async (texts: string[]) => texts.map(bagOfWords),
} as unknown as IndexConfig["embeddings"];

function bagOfWords(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
    const stem = word.slice(0, 4);
    let h = 0;
    for (const c of stem) h = (h * 31 + c.charCodeAt(0)) % 64;
    vector[h]! += 1;
  }
  return vector;
}

function pair(): [MemhiveStore, InMemoryStore] {
  return [newStore(), new InMemoryStore({ index: { dims: 64, embeddings: words, fields: ["text"] } })];
}

/** An answer without what legitimately differs (times, scores). */
function plain(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(plain);
  if (result === null || result === undefined) return result ?? null;
  const { namespace, key, value } = result as Item;
  return [namespace, key, value];
}

type Call = (store: BaseStore) => Promise<unknown>;

async function both([ours, reference]: [MemhiveStore, InMemoryStore], call: Call): Promise<any> {
  const mine = await call(ours);
  const theirs = await call(reference);
  assert.deepEqual(plain(mine), plain(theirs), String(call));
  return mine;
}

test("the same operations give the same items, values and namespaces", async () => {
  const pairOf = pair();
  const [ours, reference] = pairOf;
  await both(pairOf, (s) => s.put(ALICE, "theme", { text: "prefers a dark theme", level: 3, tags: ["ui"] }));
  await both(pairOf, (s) => s.put(ALICE, "lang", { text: "writes Python and Rust", level: 5 }));
  await both(pairOf, (s) => s.put(BOB, "theme", { text: "prefers a light theme", level: 1 }));
  await both(pairOf, (s) => s.put(["docs"], "deploy", { text: "deploys happen on Tuesdays", n: 7 }));
  const first = (await ours.get(ALICE, "theme"))!;
  await both(pairOf, (s) => s.put(ALICE, "theme", { text: "prefers a dark theme, high contrast", level: 4 }));
  await both(pairOf, (s) => s.put(["users", "alice", "counts"], "raw", { count: 2 }, false));

  const reads: Array<[string[], string]> = [[ALICE, "theme"], [BOB, "theme"], [["docs"], "deploy"], [BOB, "nope"]];
  for (const [namespace, key] of reads) {
    await both(pairOf, (s) => s.get(namespace, key));
  }
  // An update keeps createdAt (as InMemoryStore does) and moves updatedAt.
  const updated = (await ours.get(ALICE, "theme"))!;
  assert.deepEqual(updated.createdAt, first.createdAt);
  assert.ok(updated.updatedAt > first.updatedAt);

  const searches: Array<[string[], Parameters<BaseStore["search"]>[1]]> = [
    [["users"], {}],
    [[], {}],
    [ALICE, { filter: { level: { $gte: 4 } } }],
    [["users"], { filter: { level: 1 } }],
    [["users"], { filter: { level: { $gt: 1, $lte: 4 } } }],
    [["users"], { filter: { level: { $in: [1, 5] } } }],
    [["users"], { filter: { level: { $nin: [1, 5] } } }],
    [["users"], { filter: { level: { $ne: 4 } } }],
    [["users"], { filter: { count: 2 } }],
    [["users"], { filter: { level: 4, text: "prefers a dark theme, high contrast" } }],
    [["docs"], { filter: { n: { $eq: 7 } } }],
    [["users"], { limit: 1, offset: 1 }],
    [["users"], { limit: 2 }],
    [["users"], { offset: 3 }],
    [["users", "carol"], {}],
  ];
  for (const [prefix, options] of searches) await both(pairOf, (s) => s.search(prefix, options));

  const listings: Array<Parameters<BaseStore["listNamespaces"]>[0]> = [
    {},
    { prefix: ["users"] },
    { suffix: ["prefs"] },
    { suffix: ["prefs"], maxDepth: 2 },
    { prefix: ["users", "*", "prefs"] },
    { suffix: ["*", "counts"] },
    { maxDepth: 1 },
    { limit: 2 },
    { limit: 2, offset: 1 },
    { prefix: ["nobody"] },
  ];
  for (const options of listings) await both(pairOf, (s) => s.listNamespaces(options));
  assert.deepEqual(await ours.listNamespaces({ maxDepth: 2 }), [["docs"], ["users", "alice"], ["users", "bob"]]);

  await both(pairOf, (s) => s.delete(BOB, "theme"));
  await both(pairOf, (s) => s.get(BOB, "theme"));
  await both(pairOf, (s) => s.search(["users"]));
  // An emptied namespace is no longer listed (as in LangGraph's Postgres store); InMemoryStore
  // keeps an empty map for it and goes on listing it.
  const theirs = await reference.listNamespaces();
  assert.ok(theirs.some((ns) => ns.join("/") === BOB.join("/")));
  assert.deepEqual(await ours.listNamespaces(), theirs.filter((ns) => ns.join("/") !== BOB.join("/")));
});

test("a filter naming a list or object compares it by value (InMemoryStore's === finds nothing)", async () => {
  const [ours, reference] = pair();
  for (const store of [ours, reference]) {
    await store.put(["docs"], "a", { text: "a", tags: ["x", "y"], meta: { lang: "en", pages: 2 } });
    await store.put(["docs"], "b", { text: "b", tags: ["x"], meta: { lang: "fr" } });
  }
  const keys = async (filter: Record<string, unknown>) => (await ours.search(["docs"], { filter })).map((i) => i.key);
  assert.deepEqual(await keys({ tags: ["x", "y"] }), ["a"]);
  assert.deepEqual(await keys({ meta: { lang: "fr" } }), ["b"]);
  assert.deepEqual(await keys({ meta: { lang: { $ne: "fr" } } }), ["a"]);
  assert.deepEqual(await reference.search(["docs"], { filter: { tags: ["x", "y"] } }), []);
  await assert.rejects(ours.search(["docs"], { filter: { text: { $regex: "a" } } }), /Unsupported operator/);
});

test("a batch reads the store as it was before its writes; the last write of a key wins", async () => {
  const pairOf = pair();
  await both(pairOf, (s) => s.put(ALICE, "tea", { text: "likes green tea" }));
  await both(pairOf, (s) =>
    s.batch([
      { namespace: ALICE, key: "new", value: { text: "likes black coffee" } },
      { namespace: ALICE, key: "new" },
      { namespace: ALICE, key: "tea", value: null },
      { namespacePrefix: ALICE, limit: 10, offset: 0 },
      { namespace: ALICE, key: "tea" },
      { matchConditions: undefined, limit: 100, offset: 0 },
      { namespace: ALICE, key: "new", value: { text: "likes white tea" } },
      { namespace: BOB, key: "gone", value: { text: "written, then deleted" } },
      { namespace: BOB, key: "gone", value: null },
    ]),
  );
  await both(pairOf, (s) => s.get(ALICE, "new"));
  await both(pairOf, (s) => s.get(ALICE, "tea"));
  await both(pairOf, (s) => s.get(BOB, "gone"));
  await both(pairOf, (s) => s.search(["users"]));
  const [ours] = pairOf;
  assert.deepEqual((await ours.search(ALICE, { query: "which tea does alice like?" })).map((i) => i.value.text), [
    "likes white tea",
  ]);
});

test("a query finds first the item InMemoryStore finds first, within its prefix", async () => {
  const [ours, reference] = pair();
  const facts: Record<string, string> = {
    theme: "prefers a dark theme in every editor",
    food: "is vegetarian and allergic to peanuts",
    city: "lives in Lisbon and works remotely",
  };
  for (const store of [ours, reference]) {
    for (const [key, text] of Object.entries(facts)) await store.put(ALICE, key, { text, kind: key });
  }
  await ours.put(BOB, "food", { text: "eats everything, allergic to nothing" });
  for (const [query, key] of [
    ["what food is she allergic to?", "food"],
    ["which editor theme does she like?", "theme"],
    ["where does she live and work?", "city"],
  ] as const) {
    const mine = await ours.search(["users", "alice"], { query });
    const theirs = await reference.search(["users", "alice"], { query });
    assert.equal(mine[0]?.key, key, query);
    assert.equal(theirs[0]?.key, key, query);
    assert.deepEqual(new Set(mine.map((i) => i.namespace.join("/"))), new Set([ALICE.join("/")]), "Bob's stays out");
    assert.equal(typeof mine[0]?.score, "number");
  }
  const filtered = await ours.search(["users"], { query: "what food is she allergic to?", filter: { kind: "city" } });
  assert.deepEqual(filtered.map((i) => i.key), ["city"]);
  const paged = await ours.search(["users", "alice"], { query: "what food is she allergic to?", limit: 1, offset: 1 });
  assert.equal(paged.length, 1);
  assert.notEqual(paged[0]?.key, "food");
});

test("text changes and deletes reach recall; index false is listed, not recalled", async () => {
  const store = newStore();
  await store.put(ALICE, "pet", { text: "has a cat called Miso" });
  await store.put(ALICE, "pet", { text: "has a dog called Pixel" });
  const hits = await store.search(ALICE, { query: "what pet does alice have?" });
  assert.deepEqual(hits.map((h) => [h.key, h.value.text]).slice(0, 1), [["pet", "has a dog called Pixel"]]);
  await store.delete(ALICE, "pet");
  assert.deepEqual(await store.search(ALICE, { query: "what pet?" }), []);

  await store.put(ALICE, "secret", { text: "the vault code is 4711" }, false);
  await store.put(ALICE, "fields", { text: "unrelated", note: "the vault is in the cellar" }, ["note"]);
  const found = await store.search(ALICE, { query: "what is the vault code?" });
  assert.deepEqual(found.map((h) => h.key), ["fields"], "index false: not recalled; index ['note']: by its note");
  assert.deepEqual((await store.search(ALICE)).map((h) => h.key), ["secret", "fields"]);
  assert.equal((await store.get(ALICE, "secret"))?.value.text, "the vault code is 4711");
  // Re-indexed: the same item with a text now is recalled.
  await store.put(ALICE, "secret", { text: "the vault code is 4711" });
  assert.equal((await store.search(ALICE, { query: "what is the vault code?" }))[0]?.key, "secret");
});

test("invalid namespaces are refused as BaseStore refuses them; ':' is a label's right here", async () => {
  const [ours, reference] = pair();
  const doc = { text: "bar" };
  for (const store of [ours, reference] as BaseStore[]) {
    for (const namespace of [[], ["the", "thing.about"], ["some", "fun", ""], ["langgraph", "foo"]]) {
      await assert.rejects(store.put(namespace, "foo", doc), InvalidNamespaceError, JSON.stringify(namespace));
    }
    await assert.rejects(store.search(["a.b"]), InvalidNamespaceError);
    await store.put(["foo", "langgraph", "foo"], "bar", doc);
    await store.batch([{ namespace: ["langgraph", "foo"], key: "bar", value: doc }]); // batch: allowed
  }
  await both([ours, reference], (s) => s.get(["langgraph", "foo"], "bar"));
  await both([ours, reference], (s) => s.search(["foo", "langgraph"]));
  await assert.rejects(reference.put(["a:b"], "k", doc), InvalidNamespaceError);
  await ours.put(["a:b"], "k", doc);
  assert.deepEqual((await ours.get(["a:b"], "k"))?.value, doc);
});

test("product/team/agent labels place an item on that node of the scope tree", async () => {
  const store = newStore(); // its root: product:lgN
  const namespace = ["team:web", "agent:bot", "docs"];
  await store.put(namespace, "deploy", { text: "deploys happen on Tuesdays" });
  await store.put(["notes"], "n", { text: "a note at the root" });
  const node = `${store.scopePath}/team:web/agent:bot`;
  const entries = [];
  for await (const kv of client.iterState(node, { includeValues: true })) entries.push(kv);
  assert.equal(entries.length, 1);
  const entry = entries[0]!.value as Record<string, any>;
  assert.match(entries[0]!.key, /^lg\.[0-9a-f]{40}$/);
  assert.deepEqual([entry.namespace, entry.key, entry.value], [namespace, "deploy", { text: "deploys happen on Tuesdays" }]);
  const memory = await client.get(entry.memory_id);
  assert.equal(memory.scope_path, node);
  assert.equal(memory.kind, "fact");
  assert.equal(memory.source_ref, `langgraph:${node}|${entries[0]!.key}`);
  assert.ok(memory.tags.includes("langgraph") && memory.tags.length === 5, memory.tags.join());
  assert.deepEqual((await client.getState(store.scopePath, "langgraph.nodes")).value, {
    nodes: [store.scopePath, node],
  });
  assert.deepEqual((await store.search(["team:web"])).map((i) => i.key), ["deploy"]);
  assert.deepEqual((await store.search(["team:web"], { query: "when are deploys?" })).map((i) => i.key), ["deploy"]);
  assert.deepEqual(await store.listNamespaces(), [["notes"], namespace]);
  assert.deepEqual(await store.listNamespaces({ prefix: ["team:web", "*"], maxDepth: 2 }), [["team:web", "agent:bot"]]);

  // A delete takes the entry and forgets the memory.
  await store.delete(namespace, "deploy");
  await assert.rejects(client.getState(node, entries[0]!.key), NotFound);
  await assert.rejects(client.get(entry.memory_id), NotFound);
  assert.deepEqual(await store.listNamespaces(), [["notes"]]);
});

const PYTHON = join(dirname(MEMHIVE_BIN), "python");

test("the Python store reads what this one wrote, and the other way round", { skip: !existsSync(PYTHON) && "no Python store" }, async () => {
  const store = newStore();
  const labels = ["users", "zoë ✓", "team:web"]; // non-ASCII: both must hash the same bytes
  await store.put(labels, "ts", { text: "written by TypeScript", n: 1 });
  const script = `
import json, os, sys
from memhive_client.langgraph import MemhiveStore
store = MemhiveStore(os.environ["URL"], os.environ["TOKEN"], scope_path=sys.argv[1], index={"fields": ["text"]})
try:
    ns = tuple(json.loads(sys.argv[2]))
    store.put(ns, "py", {"text": "written by Python", "n": 2})
    mine = store.get(ns, "ts")
    found = store.search(ns, query="what did TypeScript write?")
    print(json.dumps({"value": mine.value, "created": mine.created_at.isoformat(),
                      "found": [i.key for i in found][:1], "namespaces": store.list_namespaces()}))
finally:
    store.close()
`;
  const ran = spawnSync(PYTHON, ["-c", script, store.scopePath, JSON.stringify(labels)], {
    env: { ...process.env, URL: memhive.url, TOKEN: memhive.token },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(ran.status, 0, ran.stderr);
  const python = JSON.parse(ran.stdout);
  const ts = (await store.get(labels, "ts"))!;
  assert.deepEqual(python.value, { text: "written by TypeScript", n: 1 });
  assert.equal(new Date(python.created).getTime(), ts.createdAt.getTime());
  assert.deepEqual(python.found, ["ts"]);
  assert.deepEqual(python.namespaces, [labels]);
  assert.deepEqual((await store.get(labels, "py"))?.value, { text: "written by Python", n: 2 });
  assert.deepEqual((await store.search(["users"], { query: "what did Python write?" }))[0]?.key, "py");
  assert.deepEqual((await store.search(["users"])).map((i) => i.key), ["ts", "py"]);
});

test("the example graph remembers across threads, per user", async () => {
  const graph = buildGraph(newStore());
  const said = [
    await chat(graph, "monday", "dana", "remember: I deploy the shop on Tuesdays"),
    await chat(graph, "monday", "dana", "remember: my cat is called Miso"),
    await chat(graph, "friday", "dana", "when do I deploy the shop?"),
    await chat(graph, "friday", "lee", "when do I deploy the shop?"),
  ];
  assert.deepEqual(said, [
    "I will remember that I deploy the shop on Tuesdays.",
    "I will remember that my cat is called Miso.",
    "You told me: I deploy the shop on Tuesdays",
    "I don't remember anything about that.", // another user's namespace
  ]);
});
