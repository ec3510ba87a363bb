"""LangGraph's long-term memory store kept in memhive (`pip install memhive-client[langgraph]`).

from memhive_client.langgraph import MemhiveStore
store = MemhiveStore("http://127.0.0.1:8080", token, index={"fields": ["text"]})
graph = builder.compile(store=store)
"""

from memhive_client.langgraph.store import MemhiveStore

__all__ = ["MemhiveStore"]
