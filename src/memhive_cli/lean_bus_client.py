"""Operator commands (token, audit, dead-letters, backup, ...) talk to NATS and nothing else.

nats-py imports aiohttp, when it is installed, for one thing only: WebSocket servers
(`ws://`). litellm installs it, and importing it is ~0.45 s, a third of such a command's
start. These commands connect over `nats://` or `tls://`, so they hide aiohttp from nats-py
(which then treats it as absent); `memhive run` and `serve` never do this.
"""

from __future__ import annotations

import os
import sys

# The commands' modules (their `register` functions live there).
OPERATOR_COMMAND_MODULES = frozenset(
    {
        "memhive_cli.tokens",
        "memhive_cli.audit",
        "memhive_cli.dead_letters",
        "memhive_cli.bus",
        "memhive_cli.backup",
        "memhive_cli.reindex",
    }
)


def hide_websocket_transport(command_module: str) -> bool:
    """True when aiohttp is now hidden from this process (an operator command, not over
    WebSocket, aiohttp not imported yet)."""
    url = os.environ.get("MEMHIVE_NATS__URL", "")
    if command_module not in OPERATOR_COMMAND_MODULES or url.startswith(("ws://", "wss://")):
        return False
    if "aiohttp" in sys.modules:
        return False
    sys.modules["aiohttp"] = None  # `import aiohttp` raises ImportError from here on
    return True
