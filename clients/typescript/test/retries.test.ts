/** Retries and typed errors against a stub server on loopback (no memhive needed). */

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";

import { Conflict, InvalidRequest, MemhiveClient, NotFound, Unavailable } from "../src/index.js";
import { retryDelayMs } from "../src/retry.js";

let server: Server;
let url = "";
const answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }> = [];
const seen: string[] = [];

before(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const answer = answers.shift() ?? { status: 500, body: { detail: "no answer scripted" } };
    response.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client(attempts = 4): MemhiveClient {
  return new MemhiveClient({ baseUrl: url, token: "t", retry: { attempts, backoffMs: 1, maxBackoffMs: 10 } });
}

test("a 503 with Retry-After is retried until the answer comes", async () => {
  seen.length = 0;
  answers.push(
    { status: 503, headers: { "Retry-After": "0" }, body: { detail: "leader election" } },
    { status: 429, headers: { "Retry-After": "0" }, body: { detail: "slow down" } },
    { status: 200, body: { status: "ok" } },
  );
  assert.deepEqual(await client().health(), { status: "ok" });
  assert.deepEqual(seen, ["GET /healthz", "GET /healthz", "GET /healthz"]);
});

test("past its attempts a 503 is Unavailable, with the server's detail", async () => {
  answers.push(
    { status: 503, headers: { "Retry-After": "0" }, body: { detail: "bus down" } },
    { status: 503, headers: { "Retry-After": "0" }, body: { detail: "bus down" } },
  );
  await assert.rejects(client(2).health(), (error: unknown) => {
    assert.ok(error instanceof Unavailable);
    assert.equal(error.status, 503);
    assert.equal(error.detail, "bus down");
    return true;
  });
});

test("Retry-After says how long to wait, within the policy's bound", () => {
  const policy = { attempts: 4, backoffMs: 250, maxBackoffMs: 8000 };
  const after = (value: string) => new Response(null, { status: 503, headers: { "Retry-After": value } });
  assert.equal(retryDelayMs(policy, 1, after("2")), 2000);
  assert.equal(retryDelayMs(policy, 1, after("60")), 8000);
  assert.equal(retryDelayMs(policy, 3, after("soon")), 1000); // not seconds: backoff
  assert.equal(retryDelayMs(policy, 2), 500);
});

test("4xx answers are final and typed", async () => {
  seen.length = 0;
  answers.push(
    { status: 404, body: { detail: "no memory with id 'x'", problems: [] } },
    { status: 422, body: { detail: "kind: unknown", problems: [{ field: "kind", message: "unknown" }] } },
    { status: 409, body: { detail: "near", problems: [], similar: [{ id: "m1" }], current_revision: 7 } },
  );
  await assert.rejects(client().get("x"), NotFound);
  await assert.rejects(client().save({ kind: "rumour", body: "b" }), (error: unknown) => {
    assert.ok(error instanceof InvalidRequest);
    assert.deepEqual(error.problems, [{ field: "kind", message: "unknown" }]);
    return true;
  });
  await assert.rejects(client().setState("global", "k", 1), (error: unknown) => {
    assert.ok(error instanceof Conflict);
    assert.deepEqual(error.similar, [{ id: "m1" }]);
    assert.equal(error.currentRevision, 7);
    return true;
  });
  assert.equal(seen.length, 3); // none retried
});

test("a refused connection is retried, then thrown", async () => {
  const closed = new MemhiveClient({ baseUrl: "http://127.0.0.1:9", retry: { attempts: 2, backoffMs: 1, maxBackoffMs: 1 } });
  await assert.rejects(closed.health(), TypeError);
});
