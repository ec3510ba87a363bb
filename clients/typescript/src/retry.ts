/** Retries with exponential backoff on 429 and 503 (and on a refused connection),
 * honouring Retry-After. Other answers are final: a 4xx will not change by asking again. */

export const RETRY_STATUSES = new Set([429, 503]);

export interface RetryPolicy {
  /** in all, the first one included */
  attempts: number;
  /** doubled each time */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, backoffMs: 250, maxBackoffMs: 8000 };

/** Milliseconds to wait after failed attempt number `attempt` (1-based). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, response?: Response): number {
  const header = response?.headers.get("retry-after") ?? "";
  if (/^\d+(\.\d+)?$/.test(header)) {
    return Math.min(Number(header) * 1000, policy.maxBackoffMs);
  }
  return Math.min(policy.backoffMs * 2 ** (attempt - 1), policy.maxBackoffMs);
}

export function shouldRetry(policy: RetryPolicy, attempt: number, response?: Response): boolean {
  if (attempt >= policy.attempts) return false;
  return response === undefined || RETRY_STATUSES.has(response.status);
}
