"""Nothing happens at import: importing the composition roots and the CLI neither loads
litellm (seconds of start-up) nor changes the environment; only building an LLM adapter does."""

from __future__ import annotations

import os
import subprocess
import sys

MODULES = [
    "memhive_adapters.llm.litellm_chat",
    "memhive_adapters.embedding.litellm_embedder",
    "memhive_adapters.runtime.llm",
    "memhive_bulletin.app",
    "memhive_link_classifier.app",
    "memhive_query.app",
    "memhive_cli.commands",
    "memhive_cli.embedded",
    "memhive_cli.serve",
]

PROBE = f"""
import os, sys
for name in {MODULES!r}:
    __import__(name)
print("litellm" in sys.modules, "LITELLM_LOCAL_MODEL_COST_MAP" in os.environ)
"""


def test_importing_the_roots_loads_no_litellm_and_sets_no_variable() -> None:
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    run = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "False"]
