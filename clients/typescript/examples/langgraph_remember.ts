/** A LangGraph.js graph that remembers across threads, its long-term memory kept in memhive
 * (the TypeScript twin of clients/python/examples/langgraph_remember.py).
 *
 * No LLM, so it runs anywhere: "remember: <fact>" stores the fact under the user's namespace;
 * anything else is answered with what the store recalls for it. Each conversation is its own
 * thread (the checkpointer keeps a thread's state); what one thread stored, another recalls.
 *
 *     npm run build
 *     MEMHIVE_URL=http://127.0.0.1:8080 MEMHIVE_TOKEN=mh_... node dist/examples/langgraph_remember.js
 */

import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import {
  Annotation,
  END,
  type LangGraphRunnableConfig,
  MemorySaver,
  START,
  StateGraph,
} from "@langchain/langgraph";

import { MemhiveStore } from "../src/langgraph/index.js";

const Turn = Annotation.Root({
  user: Annotation<string>,
  message: Annotation<string>,
  reply: Annotation<string>,
});

async function respond(state: typeof Turn.State, config: LangGraphRunnableConfig) {
  const store = config.store!;
  const namespace = ["users", state.user, "memories"];
  const message = state.message.trim();
  if (message.toLowerCase().startsWith("remember:")) {
    const fact = message.slice(message.indexOf(":") + 1).trim();
    await store.put(namespace, randomUUID(), { text: fact });
    return { reply: `I will remember that ${fact}.` };
  }
  const [found] = await store.search(namespace, { query: message, limit: 1 });
  if (!found) return { reply: "I don't remember anything about that." };
  return { reply: `You told me: ${found.value.text}` };
}

export function buildGraph(store: MemhiveStore) {
  return new StateGraph(Turn)
    .addNode("respond", respond)
    .addEdge(START, "respond")
    .addEdge("respond", END)
    .compile({ store, checkpointer: new MemorySaver() });
}

export type Graph = ReturnType<typeof buildGraph>;

export async function chat(graph: Graph, thread: string, user: string, message: string): Promise<string> {
  const config = { configurable: { thread_id: thread } };
  return (await graph.invoke({ user, message }, config)).reply;
}

async function main(): Promise<void> {
  const graph = buildGraph(new MemhiveStore({ index: { fields: ["text"] } })); // MEMHIVE_URL, MEMHIVE_TOKEN
  console.log(await chat(graph, "monday", "dana", "remember: I deploy the shop on Tuesdays"));
  console.log(await chat(graph, "friday", "dana", "when do I deploy the shop?"));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
