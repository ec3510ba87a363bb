/** Each API call described once, as data: its operation (method and path template, as the
 * OpenAPI document names it), the concrete path, query, body, and how to read the answer.
 * `OPERATIONS` lists every operation a call is written for; a test checks it against the
 * server's /openapi.json, so a route without its call fails the test. */

import type * as t from "./types.js";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type QueryValue = string | number | boolean | string[] | undefined | null;
export type Read<T> = (response: Response) => Promise<T>;

export interface Call<T> {
  operation: string;
  method: Method;
  path: string;
  query: Record<string, QueryValue>;
  json?: unknown;
  text?: string;
  read: Read<T>;
}

export const OPERATIONS = new Set<string>();
/** Served but left out of the OpenAPI document (Prometheus' scrape). */
export const UNDOCUMENTED = new Set<string>();

/** Declares an operation, e.g. "GET /v1/memories/{memory_id}". */
function operation(name: string, documented = true): { method: Method; template: string } {
  (documented ? OPERATIONS : UNDOCUMENTED).add(name);
  const [method, template] = name.split(" ") as [Method, string];
  return { method, template };
}

function call<T>(
  op: { method: Method; template: string },
  path: string,
  read: Read<T>,
  extra: Partial<Pick<Call<T>, "query" | "json" | "text">> = {},
): Call<T> {
  return { operation: `${op.method} ${op.template}`, method: op.method, path, read, query: {}, ...extra };
}

const json = <T>(): Read<T> => async (r) => (await r.json()) as T;
const field = <T>(key: string): Read<T> => async (r) => ((await r.json()) as Record<string, T>)[key] as T;
const text: Read<string> = async (r) => r.text();
const id = (value: string) => encodeURIComponent(value);
/** A segment '.' or '..' of a path, which URLs remove (WHATWG URL, even as '%2E'): such a
 * call would reach another route (get(".") the list), so the client refuses it. */
export const dotSegment = (path: string) => path.split("/").find((s) => s === "." || s === "..");
/** A node path keeps its '/' (the route's {scope:path}); each segment is encoded. */
const nodePath = (scope: string) => scope.split("/").map(id).join("/");

// --- memories -------------------------------------------------------------------------

const SAVE = operation("POST /v1/memories");
export const save = (request: t.SaveRequest, wait: t.Wait) =>
  call<t.SaveResult>(SAVE, "/v1/memories", json(), { query: { wait }, json: request });

const GET = operation("GET /v1/memories/{memory_id}");
export const get = (memoryId: string, includeExpired?: boolean) =>
  call<t.Memory>(GET, `/v1/memories/${id(memoryId)}`, json(), {
    query: { include_expired: includeExpired },
  });

const LIST = operation("GET /v1/memories");
export const list = (request: t.ListRequest) =>
  call<t.Page<t.Memory>>(LIST, "/v1/memories", json(), { query: { ...request } });

const UPDATE = operation("PATCH /v1/memories/{memory_id}");
export const update = (memoryId: string, request: t.UpdateRequest, wait: t.Wait) =>
  call<t.UpdateResult>(UPDATE, `/v1/memories/${id(memoryId)}`, json(), { query: { wait }, json: request });

const FORGET = operation("DELETE /v1/memories/{memory_id}");
export const forget = (memoryId: string, wait: t.Wait) =>
  call<t.ForgetResult>(FORGET, `/v1/memories/${id(memoryId)}`, json(), { query: { wait } });

const RECALL = operation("POST /v1/recall");
export const recall = (request: t.RecallRequest) =>
  call<t.RecalledMemory[]>(RECALL, "/v1/recall", field("results"), { json: request });

const REVISIONS = operation("GET /v1/memories/{memory_id}/revisions");
export const revisions = (memoryId: string) =>
  call<t.Revision[]>(REVISIONS, `/v1/memories/${id(memoryId)}/revisions`, field("revisions"));

// --- edges ----------------------------------------------------------------------------

const LINK = operation("POST /v1/edges");
export const link = (request: t.EdgeRequest) => call<t.LinkResult>(LINK, "/v1/edges", json(), { json: request });

const EDGES = operation("GET /v1/memories/{memory_id}/edges");
export const edges = (memoryId: string) =>
  call<t.Edge[]>(EDGES, `/v1/memories/${id(memoryId)}/edges`, field("edges"));

// --- curation: flags, confirmations, consolidation, skills ----------------------------

const FLAG = operation("POST /v1/memories/{memory_id}/flags");
export const flag = (memoryId: string, request: t.FlagRequest, wait: t.Wait) =>
  call<t.FlagResult>(FLAG, `/v1/memories/${id(memoryId)}/flags`, json(), { query: { wait }, json: request });

const FLAGS = operation("GET /v1/memories/{memory_id}/flags");
export const flags = (memoryId: string) =>
  call<t.Flag[]>(FLAGS, `/v1/memories/${id(memoryId)}/flags`, field("items"));

const CLEAR_FLAGS = operation("DELETE /v1/memories/{memory_id}/flags");
export const clearFlags = (memoryId: string, flagIds: string[] | undefined, wait: t.Wait) =>
  call<t.UpdateResult>(CLEAR_FLAGS, `/v1/memories/${id(memoryId)}/flags`, json(), {
    query: { flag_id: flagIds && flagIds.length ? flagIds : undefined, wait },
  });

const CONFIRM = operation("POST /v1/memories/{memory_id}/confirmations");
export const confirm = (memoryId: string, wait: t.Wait) =>
  call<t.UpdateResult>(CONFIRM, `/v1/memories/${id(memoryId)}/confirmations`, json(), { query: { wait } });

const CONSOLIDATE = operation("POST /v1/memories/consolidate");
export const consolidate = (request: t.ConsolidateRequest, wait: t.Wait) =>
  call<t.ConsolidateResult>(CONSOLIDATE, "/v1/memories/consolidate", json(), { query: { wait }, json: request });

const CRYSTALLIZE = operation("POST /v1/memories/{memory_id}/crystallize");
export const crystallize = (memoryId: string, request: t.CrystallizeRequest, wait: t.Wait) =>
  call<t.Skill>(CRYSTALLIZE, `/v1/memories/${id(memoryId)}/crystallize`, json(), {
    query: { wait },
    json: request,
  });

const SKILL_FILE = operation("GET /v1/memories/{memory_id}/skill");
export const skillFile = (memoryId: string, also?: string[], name?: string) =>
  call<string>(SKILL_FILE, `/v1/memories/${id(memoryId)}/skill`, text, {
    query: { also: also && also.length ? also : undefined, name },
  });

const SKILLS = operation("GET /v1/skills");
export const skills = (scopePath?: string, limit?: number, cursor?: string) =>
  call<t.Page<t.SkillInfo>>(SKILLS, "/v1/skills", json(), { query: { scope_path: scopePath, limit, cursor } });

const CANDIDATES = operation("GET /v1/skills/candidates");
export const skillCandidates = (scopePath?: string, limit?: number, cursor?: string) =>
  call<t.SkillCandidates>(CANDIDATES, "/v1/skills/candidates", json(), {
    query: { scope_path: scopePath, limit, cursor },
  });

// --- bulletins and context ------------------------------------------------------------

const BULLETIN = operation("GET /v1/bulletins/{scope}");
export const bulletin = (scope: string, productId?: string, scopePath?: string) =>
  call<t.Bulletin>(BULLETIN, `/v1/bulletins/${nodePath(scope)}`, json(), {
    query: { product_id: productId, scope_path: scopePath },
  });

const CONTEXT = operation("POST /v1/context");
export const context = (request: t.ContextRequest) =>
  call<t.ContextPack>(CONTEXT, "/v1/context", json(), { json: request });

const CLAUDE_CODE_HOOK = operation("POST /v1/hooks/claude-code");
export const claudeCodeHook = (event: t.ClaudeCodeHookInput, options: t.ClaudeCodeHookOptions = {}) =>
  call<t.ClaudeCodeHookAnswer>(CLAUDE_CODE_HOOK, "/v1/hooks/claude-code", json(), {
    query: {
      product_id: options.productId,
      scope_path: options.scopePath,
      budget: options.budget,
      limit: options.limit,
      min_confidence: options.minConfidence,
    },
    json: event,
  });

// --- products, tokens, audit, dead letters --------------------------------------------

const PUT_PRODUCT = operation("PUT /v1/products/{product_id}");
export const putProduct = (productId: string, request: t.ProductRequest) =>
  call<t.Product>(PUT_PRODUCT, `/v1/products/${id(productId)}`, json(), { json: request });

const PRODUCT = operation("GET /v1/products/{product_id}");
export const product = (productId: string) => call<t.Product>(PRODUCT, `/v1/products/${id(productId)}`, json());

const PRODUCTS = operation("GET /v1/products");
export const products = () => call<t.Product[]>(PRODUCTS, "/v1/products", field("items"));

const SCOPES = operation("GET /v1/scopes");
export const scopes = () => call<t.Scopes>(SCOPES, "/v1/scopes", json());

const CREATE_TOKEN = operation("POST /v1/admin/tokens");
export const createToken = (request: t.CreateTokenRequest) =>
  call<t.IssuedToken>(CREATE_TOKEN, "/v1/admin/tokens", json(), { json: request });

const TOKENS = operation("GET /v1/admin/tokens");
export const tokens = () => call<t.TokenInfo[]>(TOKENS, "/v1/admin/tokens", field("items"));

const REVOKE = operation("DELETE /v1/admin/tokens/{token_id}");
export const revokeToken = (tokenId: string) =>
  call<t.TokenInfo>(REVOKE, `/v1/admin/tokens/${id(tokenId)}`, json());

const ROTATE = operation("POST /v1/admin/tokens/{token_id}/rotate");
export const rotateToken = (tokenId: string, request: t.RotateTokenRequest) =>
  call<t.IssuedToken>(ROTATE, `/v1/admin/tokens/${id(tokenId)}/rotate`, json(), { json: request });

const AUDIT = operation("GET /v1/admin/audit");
export const audit = (request: t.AuditRequest) =>
  call<t.Page<t.AuditEntry>>(AUDIT, "/v1/admin/audit", json(), { query: { ...request } });

const DEAD_LETTERS = operation("GET /v1/admin/dead-letters");
export const deadLetters = (consumer?: string, limit?: number) =>
  call<t.DeadLetter[]>(DEAD_LETTERS, "/v1/admin/dead-letters", field("items"), { query: { consumer, limit } });

// --- key/value memory and recent activity ---------------------------------------------

const kvPath = (scope: string, key: string) => `/v1/kv/${nodePath(scope)}/${id(key)}`;

const GET_STATE = operation("GET /v1/kv/{scope}/{key}");
export const getState = (scope: string, key: string) => call<t.KvEntry>(GET_STATE, kvPath(scope, key), json());

const SET_STATE = operation("PUT /v1/kv/{scope}/{key}");
export const setState = (scope: string, key: string, request: t.KvPutRequest) =>
  call<t.KvEntry>(SET_STATE, kvPath(scope, key), json(), { json: request });

const DELETE_STATE = operation("DELETE /v1/kv/{scope}/{key}");
export const deleteState = (scope: string, key: string, revision?: number) =>
  call<t.KvDeleted>(DELETE_STATE, kvPath(scope, key), json(), { query: { revision } });

const LIST_STATE = operation("GET /v1/kv");
export const listState = (scope: string, limit?: number, cursor?: string, includeValues?: boolean) =>
  call<t.KvPage>(LIST_STATE, "/v1/kv", json(), {
    query: { scope, limit, cursor, include_values: includeValues },
  });

const ACTIVITY = operation("GET /v1/activity");
export const activity = (request: t.ActivityRequest) =>
  call<t.Page<t.ActivityEntry>>(ACTIVITY, "/v1/activity", json(), { query: { ...request } });

// --- import and export ----------------------------------------------------------------

const ndjson = <T>(): Read<T[]> => async (r) =>
  (await r.text())
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);

const EXPORT = operation("GET /v1/export");
/** memhive's JSONL export as text (format "jsonl"), or the Markdown zip's bytes. */
export const exportJsonl = (scopePath?: string) =>
  call<string>(EXPORT, "/v1/export", text, { query: { format: "jsonl", scope_path: scopePath } });
export const exportMarkdown = (scopePath?: string) =>
  call<Uint8Array>(EXPORT, "/v1/export", async (r) => new Uint8Array(await r.arrayBuffer()), {
    query: { format: "markdown", scope_path: scopePath },
  });

const IMPORT = operation("POST /v1/import");
export const importFile = (request: t.ImportRequest) => {
  const { text: body, ...query } = request;
  return call<t.ImportLine[]>(IMPORT, "/v1/import", ndjson<t.ImportLine>(), { query: { ...query }, text: body });
};

// --- probes ---------------------------------------------------------------------------

const HEALTH = operation("GET /healthz");
export const health = () => call<t.Health>(HEALTH, "/healthz", json());

const READY = operation("GET /readyz");
export const ready = () => call<t.Health>(READY, "/readyz", json());

const METRICS = operation("GET /metrics", false);
/** Prometheus text exposition. */
export const metrics = () => call<string>(METRICS, "/metrics", text);
