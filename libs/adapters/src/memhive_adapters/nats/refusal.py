"""Telling "the server refused us" apart from "the server is not there".

nats-py retries a refused first connection like an unreachable server (forever, with
`max_reconnect_attempts=-1`), so a wrong password or an untrusted TLS certificate would look
like a timeout. Both reach the error callback; the first one ends the attempt.

Until the first connection succeeds, the errors nats-py reports on each retry (every 0.5 s)
are logged at DEBUG only: the caller reports the attempt's outcome once, in one line, instead
of a warning per retry before it. Once connected, they go to the error callback again.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Awaitable, Callable

from nats.aio.client import Client

log = logging.getLogger(__name__)


class CredentialsRefused(ConnectionError):
    """The server answered, and refused who we said we are."""


class UntrustedServer(ConnectionError):
    """The server's TLS certificate does not verify against our CA."""


class Refusal:
    def __init__(self, on_error: Callable[[Exception], Awaitable[None]]) -> None:
        self._on_error = on_error
        self._refused = asyncio.Event()
        self._reason: ConnectionError | None = None
        self._connected = False

    async def error_cb(self, exc: Exception) -> None:
        if self._connected:
            await self._on_error(exc)
            return
        log.debug("NATS connection attempt failed: %r", exc)
        if self._refused.is_set():
            return
        if "authorization violation" in str(exc).lower():
            self._reason = CredentialsRefused("refused the credentials (Authorization Violation)")
        elif isinstance(exc, ssl.SSLCertVerificationError):
            self._reason = UntrustedServer(f"has a TLS certificate we do not trust: {exc}")
        else:
            return
        self._refused.set()

    async def connect(self, client: Client, options: dict, describe: str) -> None:
        """client.connect, ended early with CredentialsRefused or UntrustedServer."""
        connecting = asyncio.ensure_future(client.connect(**options, error_cb=self.error_cb))
        refused = asyncio.ensure_future(self._refused.wait())
        try:
            await asyncio.wait({connecting, refused}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (connecting, refused):
                if not task.done():
                    task.cancel()
        if not connecting.cancelled() and connecting.done():
            connecting.result()
            self._connected = True
            return
        reason = self._reason or CredentialsRefused("refused the connection")
        raise type(reason)(f"{describe} {reason}")
