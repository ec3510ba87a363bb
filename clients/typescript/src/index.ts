/** memhive's TypeScript client.
 *
 *     import { MemhiveClient } from "@memhive/client";
 *     const memhive = new MemhiveClient({ baseUrl: "http://127.0.0.1:8080", token });
 *     await memhive.save({ kind: "fact", body: "The API is served from Dublin", wait: "indexed" });
 *     for (const hit of await memhive.recall({ query: "where is the API served?" })) {
 *       console.log(hit.score, hit.body);
 *     }
 */

export { MemhiveClient, DEFAULT_URL, queryString } from "./client.js";
export type { ClientOptions } from "./client.js";
export * as calls from "./calls.js";
export { OPERATIONS, UNDOCUMENTED } from "./calls.js";
export type { Call } from "./calls.js";
export {
  Conflict,
  Forbidden,
  InvalidRequest,
  MemhiveError,
  NotFound,
  TooLarge,
  Unauthorized,
  Unavailable,
} from "./errors.js";
export type { Problem } from "./errors.js";
export { DEFAULT_RETRY } from "./retry.js";
export type { RetryPolicy } from "./retry.js";
export type * from "./types.js";
