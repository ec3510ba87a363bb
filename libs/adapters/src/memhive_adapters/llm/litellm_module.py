"""litellm, imported on first use by the adapters that call it.

Importing litellm takes seconds, so nothing imports it before an adapter that needs it is
built (a `memhive run` without an LLM or a remote embedder never loads it). Without
LITELLM_LOCAL_MODEL_COST_MAP, importing it fetches a model price list from GitHub (and waits
on retries when offline); the bundled copy is enough. The variable is set here, when litellm
is about to be imported, never as a side effect of importing our own modules.
"""

from __future__ import annotations

import os
from types import ModuleType


def import_litellm() -> ModuleType:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm
