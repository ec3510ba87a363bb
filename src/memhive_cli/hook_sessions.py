"""Which memories an agent's session was shown already, so a hook that adds memories to each
prompt does not add the same ones again and again.

One small file per session under the user's runtime directory (beside the instance registry,
`instance.registry_dir`), named by a digest of the session id: the id comes from the hook's
input and never becomes a path. Files of sessions idle for a week are removed when a session
starts. A file that cannot be read or written is treated as a session that saw nothing: at
worst a memory is shown twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterable, Mapping

from memhive_cli.instance import registry_dir
from memhive_cli.private_files import write_private_json

# Ids kept per session: far more than a session is shown, small enough to read each prompt.
KEPT_IDS = 1_000
IDLE_S = 7 * 24 * 3600


class ShownInSession:
    def __init__(self, session_id: str, environ: Mapping[str, str]) -> None:
        directory = registry_dir(environ).parent / "hook-sessions"
        digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self._dir, self._path = directory, directory / f"{digest}.json"

    def ids(self) -> list[str]:
        try:
            shown = json.loads(self._path.read_text())["shown"]
        except (OSError, ValueError, KeyError, TypeError):
            return []
        return [i for i in shown if isinstance(i, str)] if isinstance(shown, list) else []

    def add(self, memory_ids: Iterable[str]) -> None:
        self._write([*self.ids(), *memory_ids])

    def start_over(self, memory_ids: Iterable[str]) -> None:
        """A new context (a session started, cleared or compacted): only these were shown."""
        self._write(list(memory_ids))
        self._remove_idle()

    def _write(self, memory_ids: list[str]) -> None:
        kept = list(dict.fromkeys(memory_ids))[-KEPT_IDS:]
        with contextlib.suppress(OSError):
            write_private_json(self._path, {"shown": kept})

    def _remove_idle(self) -> None:
        cutoff = time.time() - IDLE_S
        with contextlib.suppress(OSError):
            for path in self._dir.glob("*.json"):
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < cutoff:
                        path.unlink()
