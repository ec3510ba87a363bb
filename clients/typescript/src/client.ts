/** MemhiveClient: one method per API call, each building a `Call` (calls.ts) and running it
 * with retries on 429/503 (Retry-After honoured) and on a refused connection; a refused
 * answer throws the typed error of its status (errors.ts). */

import * as calls from "./calls.js";
import type { Call, QueryValue } from "./calls.js";
import { errorFor, InvalidRequest } from "./errors.js";
import { DEFAULT_RETRY, type RetryPolicy, retryDelayMs, shouldRetry } from "./retry.js";
import type * as t from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8080";

export interface ClientOptions {
  /** default: MEMHIVE_URL, else http://127.0.0.1:8080 */
  baseUrl?: string;
  /** default: MEMHIVE_TOKEN */
  token?: string;
  retry?: RetryPolicy;
  /** per request, milliseconds (default 60 s) */
  timeoutMs?: number;
  /** for tests and other runtimes: a fetch of your own */
  fetch?: typeof fetch;
}

type Waiting = { wait?: t.Wait };

export class MemhiveClient {
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const env = typeof process !== "undefined" ? process.env : {};
    this.baseUrl = (options.baseUrl ?? env.MEMHIVE_URL ?? DEFAULT_URL).replace(/\/+$/, "");
    const token = options.token ?? env.MEMHIVE_TOKEN;
    this.headers = token ? { Authorization: `Bearer ${token}` } : {};
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetcher = options.fetch ?? fetch;
  }

  /** Runs any call of calls.ts (every method below is one of these). */
  async run<T>(call: Call<T>): Promise<T> {
    const step = calls.dotSegment(call.path);
    if (step !== undefined) {
      const message = `'${step}' cannot be sent as a path segment: URLs remove it`;
      throw new InvalidRequest(422, message, { detail: message, problems: [{ field: "path", message }] });
    }
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.send(call);
      } catch (error) {
        if (!isRefusedConnection(error) || !shouldRetry(this.retry, attempt)) throw error;
        await sleep(retryDelayMs(this.retry, attempt));
        continue;
      }
      if (shouldRetry(this.retry, attempt, response)) {
        await response.body?.cancel();
        await sleep(retryDelayMs(this.retry, attempt, response));
        continue;
      }
      if (!response.ok) throw await errorFor(response);
      return call.read(response);
    }
  }

  private send(call: Call<unknown>): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers };
    let body: string | undefined;
    if (call.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.json);
    } else if (call.text !== undefined) {
      headers["Content-Type"] = "text/plain; charset=utf-8";
      body = call.text;
    }
    const url = `${this.baseUrl}${call.path}${queryString(call.query)}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    return this.fetcher(url, { method: call.method, headers, body, signal });
  }

  // --- memories -----------------------------------------------------------------------

  /** `wait: "indexed"` returns once recall can find it. */
  save(request: t.SaveRequest & Waiting): Promise<t.SaveResult> {
    const { wait = "persisted", ...body } = request;
    return this.run(calls.save(body, wait));
  }

  get(memoryId: string, options: { includeExpired?: boolean } = {}): Promise<t.Memory> {
    return this.run(calls.get(memoryId, options.includeExpired));
  }

  list(request: t.ListRequest = {}): Promise<t.Page<t.Memory>> {
    return this.run(calls.list(request));
  }

  /** Every memory matching the filters, newest first, page after page. */
  async *iterMemories(request: Omit<t.ListRequest, "cursor"> = {}): AsyncGenerator<t.Memory> {
    yield* pages((cursor) => this.list({ limit: 100, ...request, cursor }));
  }

  update(memoryId: string, request: t.UpdateRequest & Waiting): Promise<t.UpdateResult> {
    const { wait = "persisted", ...body } = request;
    return this.run(calls.update(memoryId, body, wait));
  }

  pin(memoryId: string, wait: t.Wait = "persisted"): Promise<t.UpdateResult> {
    return this.update(memoryId, { pinned: true, wait });
  }

  unpin(memoryId: string, wait: t.Wait = "persisted"): Promise<t.UpdateResult> {
    return this.update(memoryId, { pinned: false, wait });
  }

  forget(memoryId: string, wait: t.Wait = "persisted"): Promise<t.ForgetResult> {
    return this.run(calls.forget(memoryId, wait));
  }

  recall(request: t.RecallRequest): Promise<t.RecalledMemory[]> {
    return this.run(calls.recall(request));
  }

  revisions(memoryId: string): Promise<t.Revision[]> {
    return this.run(calls.revisions(memoryId));
  }

  link(request: t.EdgeRequest): Promise<t.LinkResult> {
    return this.run(calls.link(request));
  }

  edges(memoryId: string): Promise<t.Edge[]> {
    return this.run(calls.edges(memoryId));
  }

  // --- curation -----------------------------------------------------------------------

  flag(memoryId: string, request: t.FlagRequest & Waiting): Promise<t.FlagResult> {
    const { wait = "persisted", ...body } = request;
    return this.run(calls.flag(memoryId, body, wait));
  }

  flags(memoryId: string): Promise<t.Flag[]> {
    return this.run(calls.flags(memoryId));
  }

  /** The flags named, or every flag when none is named. */
  clearFlags(memoryId: string, flagIds?: string[], wait: t.Wait = "persisted"): Promise<t.UpdateResult> {
    return this.run(calls.clearFlags(memoryId, flagIds, wait));
  }

  confirm(memoryId: string, wait: t.Wait = "persisted"): Promise<t.UpdateResult> {
    return this.run(calls.confirm(memoryId, wait));
  }

  consolidate(request: t.ConsolidateRequest & Waiting): Promise<t.ConsolidateResult> {
    const { wait = "persisted", ...body } = request;
    return this.run(calls.consolidate(body, wait));
  }

  crystallize(memoryId: string, request: t.CrystallizeRequest & Waiting = {}): Promise<t.Skill> {
    const { wait = "persisted", ...body } = request;
    return this.run(calls.crystallize(memoryId, body, wait));
  }

  /** The skill's SKILL.md as the memories read now. */
  skill(memoryId: string, options: { also?: string[]; name?: string } = {}): Promise<string> {
    return this.run(calls.skillFile(memoryId, options.also, options.name));
  }

  skills(options: { scopePath?: string; limit?: number; cursor?: string } = {}): Promise<t.Page<t.SkillInfo>> {
    return this.run(calls.skills(options.scopePath, options.limit, options.cursor));
  }

  skillCandidates(
    options: { scopePath?: string; limit?: number; cursor?: string } = {},
  ): Promise<t.SkillCandidates> {
    return this.run(calls.skillCandidates(options.scopePath, options.limit, options.cursor));
  }

  // --- bulletins and context ----------------------------------------------------------

  bulletin(scope = "global", options: { productId?: string; scopePath?: string } = {}): Promise<t.Bulletin> {
    return this.run(calls.bulletin(scope, options.productId, options.scopePath));
  }

  context(request: t.ContextRequest): Promise<t.ContextPack> {
    return this.run(calls.context(request));
  }

  /** A Claude Code hook's answer to its input: `{hookSpecificOutput: {...}}`, or `{}` when
   * there is nothing to add. */
  claudeCodeHook(event: t.ClaudeCodeHookInput, options: t.ClaudeCodeHookOptions = {}): Promise<t.ClaudeCodeHookAnswer> {
    return this.run(calls.claudeCodeHook(event, options));
  }

  // --- products, tokens, audit, dead letters ------------------------------------------

  putProduct(productId: string, request: t.ProductRequest): Promise<t.Product> {
    return this.run(calls.putProduct(productId, request));
  }

  product(productId: string): Promise<t.Product> {
    return this.run(calls.product(productId));
  }

  products(): Promise<t.Product[]> {
    return this.run(calls.products());
  }

  /** `global`, then every product the caller may see (recorded or named by a memory). */
  scopes(): Promise<t.Scopes> {
    return this.run(calls.scopes());
  }

  /** Admins; the secret is in `.token` of this answer only. */
  createToken(request: t.CreateTokenRequest): Promise<t.IssuedToken> {
    return this.run(calls.createToken(request));
  }

  tokens(): Promise<t.TokenInfo[]> {
    return this.run(calls.tokens());
  }

  revokeToken(tokenId: string): Promise<t.TokenInfo> {
    return this.run(calls.revokeToken(tokenId));
  }

  rotateToken(tokenId: string, request: t.RotateTokenRequest = {}): Promise<t.IssuedToken> {
    return this.run(calls.rotateToken(tokenId, request));
  }

  /** Admins: the workspace's audit log, newest first. */
  audit(request: t.AuditRequest = {}): Promise<t.Page<t.AuditEntry>> {
    return this.run(calls.audit(request));
  }

  deadLetters(options: { consumer?: string; limit?: number } = {}): Promise<t.DeadLetter[]> {
    return this.run(calls.deadLetters(options.consumer, options.limit));
  }

  // --- key/value memory and recent activity -------------------------------------------

  getState(scope: string, key: string): Promise<t.KvEntry> {
    return this.run(calls.getState(scope, key));
  }

  /** A `revision` that no longer holds throws Conflict (`.currentRevision`). */
  setState(scope: string, key: string, value: unknown, options: Omit<t.KvPutRequest, "value"> = {}): Promise<t.KvEntry> {
    return this.run(calls.setState(scope, key, { value, ...options }));
  }

  deleteState(scope: string, key: string, revision?: number): Promise<t.KvDeleted> {
    return this.run(calls.deleteState(scope, key, revision));
  }

  listState(
    scope: string,
    options: { limit?: number; cursor?: string; includeValues?: boolean } = {},
  ): Promise<t.KvPage> {
    return this.run(calls.listState(scope, options.limit, options.cursor, options.includeValues));
  }

  /** Every entry at the node, in the order they were last written, page after page. */
  async *iterState(
    scope: string,
    options: { pageSize?: number; includeValues?: boolean } = {},
  ): AsyncGenerator<t.KvEntry> {
    const { pageSize = 100, includeValues } = options;
    yield* pages((cursor) => this.listState(scope, { limit: pageSize, cursor, includeValues }));
  }

  activity(request: t.ActivityRequest = {}): Promise<t.Page<t.ActivityEntry>> {
    return this.run(calls.activity(request));
  }

  // --- import and export --------------------------------------------------------------

  /** memhive's JSONL export of what this token may read (every field, edges, revisions). */
  exportJsonl(scopePath?: string): Promise<string> {
    return this.run(calls.exportJsonl(scopePath));
  }

  /** A zip of Markdown files, one per node of the scope tree. */
  exportMarkdown(scopePath?: string): Promise<Uint8Array> {
    return this.run(calls.exportMarkdown(scopePath));
  }

  /** The answer's lines: a plan, one per item (created, restored, linked or skipped, with
   * why), and a summary. A bad file throws InvalidRequest naming its lines. */
  importFile(request: t.ImportRequest): Promise<t.ImportLine[]> {
    return this.run(calls.importFile(request));
  }

  // --- probes -------------------------------------------------------------------------

  health(): Promise<t.Health> {
    return this.run(calls.health());
  }

  ready(): Promise<t.Health> {
    return this.run(calls.ready());
  }

  metrics(): Promise<string> {
    return this.run(calls.metrics());
  }
}

async function* pages<T>(page: (cursor?: string) => Promise<t.Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const found = await page(cursor);
    yield* found.items;
    cursor = found.next_cursor ?? undefined;
  } while (cursor);
}

export function queryString(query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function isRefusedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return error instanceof TypeError && ["ECONNREFUSED", "ECONNRESET"].includes(cause?.code ?? "");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
