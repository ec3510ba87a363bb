/** The client against a real memhive (`memhive run`, started here): every REST operation of
 * its /openapi.json has a call, every call the tests make goes to the path its operation
 * names, and each call does what the API says. */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  Conflict,
  Forbidden,
  InvalidRequest,
  MemhiveClient,
  NotFound,
  OPERATIONS,
  UNDOCUMENTED,
  Unauthorized,
  type Memory,
} from "../src/index.js";
import { type RunningMemhive, startMemhive } from "./memhive.js";

let memhive: RunningMemhive;
let admin: MemhiveClient;
const made: Array<{ method: string; path: string }> = [];

/** A fetch that notes each request, so the paths can be checked against the operations. */
const noting: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  made.push({ method: init?.method ?? "GET", path: url.pathname });
  return fetch(input, init);
};

function clientFor(token: string): MemhiveClient {
  return new MemhiveClient({ baseUrl: memhive.url, token, fetch: noting });
}

before(async () => {
  memhive = await startMemhive();
  admin = clientFor(memhive.token);
});

after(async () => {
  await memhive?.stop();
});

const templates = () =>
  [...OPERATIONS, ...UNDOCUMENTED].map((operation) => {
    const [method, template] = operation.split(" ") as [string, string];
    const pattern = template.replace(/\{scope\}/g, ".+").replace(/\{[^}]+\}/g, "[^/]+");
    return { method, pattern: new RegExp(`^${pattern}$`) };
  });

test("every operation of the OpenAPI document has a call", async () => {
  const document = (await (await fetch(`${memhive.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const served = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
  assert.ok(served.length >= 30, `only ${served.length} operations served`);
  const missing = served.filter((operation) => !OPERATIONS.has(operation));
  assert.deepEqual(missing, [], "operations without a call in src/calls.ts");
  const gone = [...OPERATIONS].filter((operation) => !served.includes(operation));
  assert.deepEqual(gone, [], "calls for operations the server no longer has");
});

test("memories: save, get, list, update, recall, revisions, edges, forget", async () => {
  const old = await admin.save({ kind: "fact", body: "The build server runs Jenkins", tags: ["ci"], wait: "indexed" });
  assert.equal(old.status, "indexed");
  await assert.rejects(admin.save({ kind: "fact", body: "The build server runs Jenkins 2", wait: "indexed" }), (e) => {
    assert.ok(e instanceof Conflict);
    assert.equal(e.similar[0]?.id, old.id);
    return true;
  });
  const fresh = await admin.save({
    kind: "fact",
    body: "The build server moved to GitHub Actions",
    supersedes: [old.id],
    wait: "indexed",
  });
  const hits = await admin.recall({ query: "which build server do we use?" });
  assert.equal(hits[0]?.id, fresh.id);
  assert.deepEqual(hits[0]?.replaces, [old.id]);
  assert.deepEqual((await admin.edges(fresh.id)).map((e) => e.kind), ["updates"]);
  const linked = await admin.link({ src_id: fresh.id, dst_id: old.id, kind: "related_to", rationale: "same" });
  assert.equal(linked.status, "created");
  assert.equal((await admin.get(fresh.id)).body, "The build server moved to GitHub Actions");
  const listed: Memory[] = [];
  for await (const memory of admin.iterMemories({ tag: ["ci"], limit: 1 })) listed.push(memory);
  assert.deepEqual(listed.map((m) => m.id), [old.id]);

  const changed = await admin.update(fresh.id, { tags: ["ci", "build"], wait: "indexed" });
  assert.deepEqual(changed.memory.tags, ["ci", "build"]);
  assert.equal((await admin.pin(fresh.id)).memory.pinned, true);
  assert.equal((await admin.unpin(fresh.id)).memory.pinned, false);
  assert.deepEqual((await admin.revisions(fresh.id)).map((r) => r.revision), [1, 2, 3, 4]);
  assert.equal((await admin.list({ kind: ["fact"], limit: 5 })).items.length, 2);

  assert.equal((await admin.forget(old.id, "indexed")).status, "forgotten");
  await assert.rejects(admin.get(old.id), NotFound);
  await assert.rejects(admin.save({ kind: "rumour", body: "" }), (e) => {
    assert.ok(e instanceof InvalidRequest);
    assert.deepEqual(new Set(e.problems.map((p) => p.field)), new Set(["kind", "body"]));
    return true;
  });
});

test("curation: flags, confirmations, consolidation, skills", async () => {
  const saved = await admin.save({ kind: "fact", body: "The nightly backup runs at 02:00 UTC", wait: "indexed" });
  const flagged = await admin.flag(saved.id, { kind: "unverified", reason: "nobody checked" });
  assert.ok(flagged.flag_id);
  assert.deepEqual((await admin.flags(saved.id)).map((f) => f.kind), ["unverified"]);
  assert.deepEqual((await admin.clearFlags(saved.id)).memory.flags, []);
  assert.equal((await admin.confirm(saved.id)).memory.confirmations, 1);

  const a = await admin.save({ kind: "fact", body: "Staging deploys need a green CI run", wait: "indexed" });
  const b = await admin.save({ kind: "fact", body: "Staging deploys are announced in #deploys", force: true, wait: "indexed" });
  const merged = await admin.consolidate({
    ids: [a.id, b.id],
    body: "Staging deploys need a green CI run and are announced in #deploys",
    wait: "indexed",
  });
  assert.deepEqual(merged.consolidated, [a.id, b.id]);

  const steps = await admin.save({ kind: "procedure", body: "1. Tag the commit\n2. Run the release job", wait: "indexed" });
  for (let i = 0; i < 3; i++) await admin.confirm(steps.id);
  assert.deepEqual((await admin.skillCandidates()).items.map((m) => m.id), [steps.id]);
  const skill = await admin.crystallize(steps.id, { name: "release-steps", wait: "indexed" });
  assert.equal(skill.filename, "release-steps/SKILL.md");
  assert.ok((await admin.skill(steps.id, { name: "release-steps" })).startsWith("---\nname: release-steps\n"));
  assert.deepEqual((await admin.skills()).items.map((s) => s.id), [steps.id]);
});

test("bulletins, context, products, key/value state and activity", async () => {
  await admin.save({ kind: "decision", body: "Mobile reviews designs on Thursdays", scope_path: "product:ios/team:mobile", wait: "indexed" });
  const bulletin = await admin.bulletin("product:ios/team:mobile");
  assert.equal(bulletin.scope_path, "product:ios/team:mobile");
  const pack = await admin.context({ token_budget: 400, query: "design reviews", scope_path: "product:ios/team:mobile" });
  assert.ok(pack.text.includes("Thursdays") && pack.tokens_used <= 400);
  const prompt = { hook_event_name: "UserPromptSubmit", session_id: "ts-1", prompt: "which day are design reviews?", cwd: "/x" };
  const hooked = await admin.claudeCodeHook(prompt, { scopePath: "product:ios/team:mobile" });
  assert.equal(hooked.hookSpecificOutput?.hookEventName, "UserPromptSubmit");
  assert.ok(hooked.hookSpecificOutput?.additionalContext.includes("Mobile reviews designs on Thursdays"));
  assert.deepEqual(await admin.claudeCodeHook(prompt, { scopePath: "product:ios/team:mobile" }), {});

  const product = await admin.putProduct("shop", { visibility: "public", name: "The shop" });
  assert.deepEqual(await admin.product("shop"), product);
  assert.deepEqual((await admin.products()).map((p) => p.product_id), ["shop"]);
  const scopes = await admin.scopes();
  assert.equal(scopes.items[0]?.scope_path, "global");
  assert.deepEqual(
    scopes.items.slice(1).map((s) => [s.scope_path, s.recorded]).sort(),
    [["product:ios", false], ["product:shop", true]],
  );
  assert.equal(scopes.complete, true);

  const first = await admin.setState("product:ios/team:mobile", "plan", { step: 1 }, { create_only: true });
  const second = await admin.setState("product:ios/team:mobile", "plan", { step: 2 }, { revision: first.revision });
  await assert.rejects(admin.setState("product:ios/team:mobile", "plan", { step: 3 }, { revision: first.revision }), (e) => {
    assert.ok(e instanceof Conflict);
    assert.equal(e.currentRevision, second.revision);
    return true;
  });
  assert.deepEqual((await admin.getState("product:ios/team:mobile", "plan")).value, { step: 2 });
  const page = await admin.listState("product:ios/team:mobile", { includeValues: true });
  assert.deepEqual(page.items.map((e) => [e.key, e.value]), [["plan", { step: 2 }]]);
  assert.equal((await admin.deleteState("product:ios/team:mobile", "plan", second.revision)).status, "deleted");
  await assert.rejects(admin.getState("product:ios/team:mobile", "plan"), NotFound);

  const kinds = new Set((await admin.activity({ limit: 100 })).items.map((e) => e.kind));
  assert.ok(kinds.has("saved"));
});

test("a '.' or '..' is the caller's value, not a path step", async () => {
  // URLs remove dot segments: get(".") read the list route, and "<node>/.." the parent.
  for (const memoryId of [".", ".."]) {
    await assert.rejects(admin.get(memoryId), InvalidRequest);
    await assert.rejects(admin.forget(memoryId), InvalidRequest);
  }
  await assert.rejects(admin.get("%2e"), NotFound); // the characters, not a step
  await assert.rejects(admin.setState("product:ios/..", "plan", 1), InvalidRequest);
  await assert.rejects(admin.getState("global", "plan"), NotFound);
  await admin.setState("product:ios.v2", "ui.theme", "dark"); // dots inside a segment stay
  assert.equal((await admin.getState("product:ios.v2", "ui.theme")).value, "dark");
});

test("tokens, the audit log, dead letters and who may do what", async () => {
  const issued = await admin.createToken({ user: "reader-bot", role: "viewer", name: "reader" });
  assert.ok(issued.token.startsWith(`mh_${issued.id}_`));
  assert.ok((await admin.tokens()).some((t) => t.id === issued.id));
  const viewer = clientFor(issued.token);
  await assert.rejects(viewer.save({ kind: "fact", body: "A viewer cannot write" }), Forbidden);
  const rotated = await admin.rotateToken(issued.id, { grace: "1h" });
  assert.equal(rotated.id, issued.id);
  assert.equal((await admin.revokeToken(issued.id)).status, "revoked");
  const page = await admin.audit({ target: issued.id });
  assert.ok(page.items.some((e) => e.action === "token_create"));
  assert.deepEqual(await admin.deadLetters(), []);
  await assert.rejects(clientFor("mh_0000000000000000_nope").list(), Unauthorized);
});

test("import and export", async () => {
  const lines = await admin.importFile({
    text: "## Code style\n\n- Always use tabs\n- Prefer small functions\n",
    path: "CLAUDE.md",
    scope_path: "product:ts",
  });
  const items = lines.filter((l) => l.type === "item");
  assert.deepEqual(items.map((i) => (i.type === "item" ? [i.status, i.kind, i.source_ref] : [])), [
    ["created", "preference", "CLAUDE.md#code-style:1"],
    ["created", "preference", "CLAUDE.md#code-style:2"],
  ]);
  const again = await admin.importFile({ text: "- Always use tabs\n", path: "AGENTS.md", scope_path: "product:ts", dry_run: true });
  assert.deepEqual(again.at(-1), { type: "summary", created: 1, skipped: 0, reasons: {}, dry_run: true });
  await assert.rejects(admin.importFile({ text: "not json\n", format: "memhive" }), (e) => {
    assert.ok(e instanceof InvalidRequest);
    assert.equal(e.problems[0]?.field, "line 1");
    return true;
  });
  const jsonl = await admin.exportJsonl("product:ts");
  const exported = jsonl.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(exported.filter((l) => l.type === "memory").length, 2);
  const zip = await admin.exportMarkdown("product:ts");
  assert.deepEqual([...zip.slice(0, 2)], [0x50, 0x4b]); // "PK"
});

test("probes", async () => {
  assert.equal((await admin.health()).status, "ok");
  assert.equal((await admin.ready()).status, "ready");
  assert.ok((await admin.metrics()).includes("# HELP"));
});

test("every request went to the path its operation names", () => {
  const known = templates();
  const strays = made.filter((r) => !known.some((k) => k.method === r.method && k.pattern.test(r.path)));
  assert.deepEqual(strays, []);
  assert.ok(made.length > 40);
});

