"""A serving process's collector: the young generation's threshold raised, the older ones'
kept, and what startup made frozen. Run in a child interpreter: the settings are the
process's, and this one runs every other test."""

from __future__ import annotations

import json
import subprocess
import sys

from memhive_cli.garbage_collection import YOUNG_GENERATION

CHILD = """
import gc, json
from memhive_cli.garbage_collection import collect_for_a_server, freeze_startup_objects
before = gc.get_threshold()
collect_for_a_server()
tuned = gc.get_threshold()
startup = [[object()] for _ in range(1000)]  # what startup made, kept
freeze_startup_objects()
print(json.dumps({"before": before, "tuned": tuned, "frozen": gc.get_freeze_count(),
                  "tracked": len(gc.get_objects())}))
"""


def test_the_young_generation_grows_and_startup_objects_are_frozen() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    state = json.loads(done.stdout)

    assert state["tuned"] == [YOUNG_GENERATION, *state["before"][1:]]
    assert state["before"][0] < YOUNG_GENERATION
    # Everything alive is now in the permanent generation: no collection walks it again.
    assert state["frozen"] > 2000
    assert state["tracked"] < 100
