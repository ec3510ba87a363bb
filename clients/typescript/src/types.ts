/** The API's JSON shapes (the same as memhive_client.models in Python). Answers may carry
 * fields this version does not know: a newer server does not break an older client. */

export type Wait = "accepted" | "persisted" | "indexed";
export type Kind =
  | "fact" | "preference" | "decision" | "identity" | "event"
  | "observation" | "goal" | "todo" | "procedure";
export type Visibility = "public" | "private";
export type Role = "admin" | "member" | "agent" | "viewer";

// --- requests -------------------------------------------------------------------------

export interface SaveRequest {
  kind: Kind | string;
  body: string;
  importance?: number;
  pinned?: boolean;
  tags?: string[];
  scope?: string;
  product_id?: string;
  /** a node of the scope tree, e.g. "product:ios/team:mobile" */
  scope_path?: string;
  visibility?: Visibility | string;
  source?: string;
  source_ref?: string;
  expires_at?: string;
  /** when it happened (ISO 8601), if not now */
  occurred_at?: string;
  force?: boolean;
  supersedes?: string[];
}

export interface TimeWindow {
  occurred_after?: string;
  occurred_before?: string;
  created_after?: string;
  created_before?: string;
}

export interface ListRequest extends TimeWindow {
  kind?: string[];
  scope?: string;
  product_id?: string;
  scope_path?: string;
  tag?: string[];
  limit?: number;
  cursor?: string;
  include_expired?: boolean;
}

export interface RecallRequest extends TimeWindow {
  query: string;
  scope?: string;
  product_id?: string;
  scope_path?: string;
  kinds?: string[];
  tags?: string[];
  max_results?: number;
  include_superseded?: boolean;
  min_confidence?: number;
  lanes?: Array<"vector" | "lexical">;
}

export interface EdgeRequest {
  src_id: string;
  dst_id: string;
  kind: "updates" | "contradicts" | "related_to" | string;
  weight?: number;
  rationale?: string;
}

export interface ContextRequest extends TimeWindow {
  token_budget: number;
  query?: string;
  scope?: string;
  product_id?: string;
  scope_path?: string;
}

/** A Claude Code hook's input, as Claude Code sends it (its other fields are ignored). */
export interface ClaudeCodeHookInput {
  hook_event_name: string;
  session_id?: string;
  source?: string;
  prompt?: string;
  [other: string]: unknown;
}

export interface ClaudeCodeHookOptions {
  productId?: string;
  scopePath?: string;
  /** a session's opening pack, in tokens (1500) */
  budget?: number;
  /** memories added to a prompt at most (5) */
  limit?: number;
  minConfidence?: number;
}

/** What a hook prints for Claude Code; `{}` adds nothing. */
export interface ClaudeCodeHookAnswer {
  hookSpecificOutput?: { hookEventName: string; additionalContext: string };
}

/** Only the fields given change; `expires_at: null` removes the expiry. */
export interface UpdateRequest {
  body?: string;
  importance?: number;
  tags?: string[];
  pinned?: boolean;
  visibility?: Visibility | string;
  expires_at?: string | null;
  occurred_at?: string | null;
  force?: boolean;
}

export interface FlagRequest {
  kind: "wrong" | "outdated" | "unverified" | string;
  reason: string;
}

export interface ConsolidateRequest {
  ids: string[];
  body?: string;
  summarize?: boolean;
  kind?: string;
  importance?: number;
  tags?: string[];
}

export interface CrystallizeRequest {
  also?: string[];
  name?: string;
  description?: string;
}

export interface ProductRequest {
  visibility: Visibility | string;
  name?: string;
}

export interface CreateTokenRequest {
  user: string;
  role?: Role;
  name?: string;
  home?: string;
  acting_for?: string;
  /** e.g. "30d", "12h" */
  expires_in?: string;
  expires_at?: string;
}

export interface RotateTokenRequest {
  /** how long the old secret keeps working, e.g. "1h" */
  grace?: string;
}

export interface KvPutRequest {
  value: unknown;
  ttl_s?: number;
  /** write only if the entry is still at this revision */
  revision?: number;
  /** write only if the key does not exist yet */
  create_only?: boolean;
}

export interface AuditRequest {
  action?: string;
  principal?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface ActivityRequest {
  scope?: string;
  kind?: string[];
  since?: string;
  limit?: number;
  cursor?: string;
}

export interface ImportRequest {
  /** the file's text */
  text: string;
  /** default: from `path` (.jsonl memhive, .json mem0, else markdown) */
  format?: "memhive" | "mem0" | "markdown";
  /** the file's name, kept in each memory's source_ref (e.g. "CLAUDE.md") */
  path?: string;
  scope_path?: string;
  dry_run?: boolean;
  force?: boolean;
}

// --- answers --------------------------------------------------------------------------

export interface Flag {
  id: string;
  kind: string;
  reason: string;
  flagged_by: string;
  flagged_at: string;
}

export interface Memory {
  id: string;
  kind: Kind;
  body: string;
  importance: number;
  pinned: boolean;
  tags: string[];
  scope: string;
  product_id: string | null;
  scope_path: string;
  team_id: string | null;
  agent_id: string | null;
  visibility: Visibility;
  source: string;
  source_ref: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  occurred_at: string | null;
  revision: number;
  access_count: number;
  last_accessed_at: string | null;
  trust: number;
  staleness: number;
  flags: Flag[];
  confirmations: number;
  corrections: number;
  promoted_at: string | null;
  [more: string]: unknown;
}

export interface RecalledMemory extends Memory {
  score: number;
  confidence: number;
  lane_ranks: Record<string, number>;
  replaces?: string[];
  superseded_by?: string;
}

export interface SaveResult {
  id: string;
  status: "accepted" | "persisted" | "indexed" | "duplicate";
  memory: Memory;
}

export interface UpdateResult {
  id: string;
  status: "updated" | "unchanged" | "accepted";
  memory: Memory;
  detail?: string;
}

export interface FlagResult extends UpdateResult {
  flag_id: string | null;
}

export interface ForgetResult {
  id: string;
  status: "accepted" | "forgotten";
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Edge {
  src_id: string;
  dst_id: string;
  kind: string;
  weight: number;
  created_by: string;
  creator_kind: string;
  rationale: string;
  created_at: string;
}

export interface LinkResult {
  edge: Edge;
  status: string;
}

export interface Revision {
  revision: number;
  updated_at: string;
  kind: string;
  body: string;
  tags: string[];
  scope: string;
  product_id: string | null;
  forgotten: boolean;
  change: string;
  event_id: string;
  command_id: string;
}

export interface Bulletin {
  scope: string;
  product_id: string | null;
  scope_path: string;
  text: string;
  generated_at: string;
  token_count: number;
  renderer: string;
  fingerprint: string;
  memory_ids: string[];
  sources: Array<{ id: string; revision: number }>;
  pinned_over_budget: boolean;
}

export interface ContextPack {
  text: string;
  tokens_used: number;
  token_budget: number;
  bulletin_truncated: boolean;
  items: Array<{ id: string; class: string }>;
}

export interface ConsolidateResult {
  id: string;
  status: string;
  memory: Memory;
  consolidated: string[];
}

export interface Skill {
  name: string;
  status: "crystallized" | "accepted";
  filename: string;
  skill_md: string;
  download: string;
  memories: Memory[];
}

export interface SkillInfo {
  id: string;
  name: string;
  description: string;
  scope_path: string;
  promoted_at: string | null;
  download: string;
}

export interface SkillCandidates extends Page<Memory> {
  threshold: number;
}

export interface Product {
  product_id: string;
  name: string | null;
  visibility: Visibility;
  updated_by: string;
  updated_at: string;
}

/** Where the caller reads something: `global`, then every product it may see. */
export interface ScopeEntry {
  scope_path: string;
  product_id?: string;
  name?: string | null;
  /** The product has a record (`PUT /v1/products`), not only memories naming it. */
  recorded?: boolean;
}

export interface Scopes {
  items: ScopeEntry[];
  /** false: more products may be named by memories than were looked through. */
  complete: boolean;
}

export interface TokenInfo {
  id: string;
  name: string;
  workspace_id: string;
  user: string;
  role: Role;
  home: string;
  acting_for: string | null;
  created_at: string | null;
  created_by: string | null;
  expires_at: string | null;
  rotated_at: string | null;
  status?: string;
}

export interface IssuedToken extends TokenInfo {
  /** the secret: in this answer only */
  token: string;
}

export interface AuditEntry {
  id: string;
  time: string;
  action: string;
  user: string;
  role: string;
  credential: string;
  acting_for: string | null;
  target: string;
  outcome: string;
  detail: string;
}

export interface DeadLetter {
  sequence: number;
  consumer: string;
  subject: string;
  reason: string;
  deliveries: number;
  time: string | null;
  headers: Record<string, string>;
  payload_base64: string;
}

export interface KvEntry {
  scope: string;
  key: string;
  revision: number;
  updated_by: string;
  updated_at: string;
  expires_at: string | null;
  size: number;
  /** absent from listings made without include_values */
  value?: unknown;
}

export interface KvPage extends Page<KvEntry> {
  scope: string;
}

export interface KvDeleted {
  scope: string;
  key: string;
  status: "deleted";
}

export interface ActivityEntry {
  kind: "saved" | "updated" | "forgotten" | "linked" | "recalled";
  time: string;
  actor: string;
  memories: Array<{ id: string; kind: string; scope_path: string; revision: number; summary: string | null }>;
  edges: Array<{ src_id: string; dst_id: string; kind: string }>;
  query: string | null;
  reason: string | null;
}

/** One line of an import's answer. */
export type ImportLine =
  | { type: "plan"; total: number; dry_run: boolean; notes: string[] }
  | {
      type: "item";
      line: number;
      status: "created" | "restored" | "linked" | "skipped";
      dry_run: boolean;
      memory_id: string | null;
      kind: string | null;
      scope_path: string | null;
      source_ref: string | null;
      supersedes: string[];
      reason: string;
    }
  | { type: "summary"; created: number; skipped: number; reasons: Record<string, number>; dry_run: boolean }
  | { type: "error"; detail: string };

export interface Health {
  status: string;
  [more: string]: unknown;
}
