/** LangGraph.js's long-term memory store kept in memhive: `@memhive/client/langgraph`, a
 * separate entry so the main one needs nothing installed (this one needs the optional peer
 * `@langchain/langgraph-checkpoint`).
 *
 *     import { MemhiveStore } from "@memhive/client/langgraph";
 *     const store = new MemhiveStore({ baseUrl: "http://127.0.0.1:8080", token, index: { fields: ["text"] } });
 *     const graph = builder.compile({ store });
 */

export { MemhiveStore } from "./store.js";
export type { MemhiveStoreOptions } from "./store.js";
