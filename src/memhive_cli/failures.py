"""What a command prints when it cannot do its job for a reason the user can fix: one line,
not a traceback (MEMHIVE_LOG_LEVEL=DEBUG shows the traceback too)."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("memhive_cli")


def expected_failures() -> tuple[type[BaseException], ...]:
    # Light imports only: these load on every command.
    from memhive_adapters.nats.embedded_server import EmbeddedServerError
    from memhive_adapters.process_lifetime import DirectoryBusy
    from memhive_ports.embedder import ModelNotAvailable
    from nats.errors import Error as NatsError

    from memhive_cli.instance import SeveralInstances

    return (
        ConnectionError,
        NatsError,
        DirectoryBusy,
        EmbeddedServerError,
        SeveralInstances,
        ModelNotAvailable,
    )


def report(exc: BaseException) -> int:
    """Print `memhive: <reason>` on stderr; the exit code is 2 for an unreachable bus."""
    log.debug("command failed", exc_info=exc)
    print(f"memhive: {_reason(exc)}", file=sys.stderr)
    return 2 if isinstance(exc, ConnectionError) else 1


def _reason(exc: BaseException) -> str:
    reason = str(exc).strip() or type(exc).__name__
    if isinstance(exc, ConnectionError) and "NATS" in reason:
        reason += " (is `memhive run` up? `memhive --verbose ...` says where it looked)"
    return reason.splitlines()[0] if isinstance(exc, ConnectionError) else reason
