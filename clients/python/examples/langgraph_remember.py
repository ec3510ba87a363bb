"""A LangGraph graph that remembers across threads, its long-term memory kept in memhive.

No LLM, so it runs anywhere: "remember: <fact>" stores the fact under the user's namespace;
anything else is answered with what the store recalls for it. Each conversation is its own
thread (the checkpointer keeps a thread's state); what one thread stored, another recalls.

    MEMHIVE_URL=http://127.0.0.1:8080 MEMHIVE_TOKEN=mh_... python langgraph_remember.py
"""

from __future__ import annotations

import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from memhive_client.langgraph import MemhiveStore


class Turn(TypedDict, total=False):
    user: str
    message: str
    reply: str


def respond(state: Turn, runtime: Runtime) -> Turn:
    namespace = ("users", state["user"], "memories")
    message = state["message"].strip()
    if message.lower().startswith("remember:"):
        fact = message.split(":", 1)[1].strip()
        runtime.store.put(namespace, str(uuid.uuid4()), {"text": fact})
        return {"reply": f"I will remember that {fact}."}
    found = runtime.store.search(namespace, query=message, limit=1)
    if not found:
        return {"reply": "I don't remember anything about that."}
    return {"reply": f"You told me: {found[0].value['text']}"}


def build_graph(store: MemhiveStore):
    builder = StateGraph(Turn)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(store=store, checkpointer=InMemorySaver())


def chat(graph, thread: str, user: str, message: str) -> str:
    config = {"configurable": {"thread_id": thread}}
    return graph.invoke({"user": user, "message": message}, config)["reply"]


def main() -> None:
    store = MemhiveStore(index={"fields": ["text"]})  # MEMHIVE_URL, MEMHIVE_TOKEN
    try:
        graph = build_graph(store)
        print(chat(graph, "monday", "dana", "remember: I deploy the shop on Tuesdays"))
        print(chat(graph, "friday", "dana", "when do I deploy the shop?"))
    finally:
        store.close()


if __name__ == "__main__":
    main()
