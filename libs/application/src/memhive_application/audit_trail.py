"""The audit trail: who did what to which target and how it ended, appended to the audit
log by every audited use case (gateway routes, MCP tools, the CLI's token commands)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from memhive_domain.audit import AuditAction, AuditEntry, AuditQuery, Outcome
from memhive_domain.errors import DomainError, NotAllowed
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_ports import AuditLog, AuditPage, Clock, RetryLater

log = logging.getLogger(__name__)


@dataclass
class Recording:
    target: str = ""
    detail: str = ""  # what a successful action did, when its target does not say (an import)
    # An entry appended before the block ended (`settle`), awaited at its end.
    early: asyncio.Future | None = field(default=None, repr=False)
    append: Callable[[str], Awaitable[None]] | None = field(default=None, repr=False)

    def settle(self, target: str) -> None:
        """The action is done (its write durable, say) though the block still waits for
        something after it: the "ok" entry is appended from now on, beside that wait, and
        the block's end waits for it. A failure after this point leaves the entry as is:
        what it records has happened."""
        if self.early is None and self.append is not None:
            self.target = target
            self.early = asyncio.ensure_future(self.append(target))


class AuditTrail:
    """Appends one entry per audited action. `rejections`: the exceptions that mean a rule
    or the input refused the action (DomainError, plus a service's own, e.g. near-duplicates)."""

    def __init__(
        self,
        log_: AuditLog,
        clock: Clock,
        rejections: tuple[type[Exception], ...] = (DomainError,),
    ) -> None:
        self._log, self._clock, self._rejections = log_, clock, rejections

    @asynccontextmanager
    async def recording(
        self, principal: Principal, action: AuditAction, target: str = ""
    ) -> AsyncIterator[Recording]:
        """Records the block's outcome: ok, denied (NotAllowed), rejected (a rule or
        input refused it) or failed; the block may set the target once it knows it."""
        note, outcome, detail = Recording(target), Outcome.OK, ""
        note.append = lambda settled: self.record(principal, action, settled, Outcome.OK)
        try:
            yield note
        except NotAllowed as exc:
            outcome, detail = Outcome.DENIED, str(exc)
            raise
        except self._rejections as exc:
            outcome, detail = Outcome.REJECTED, str(exc)
            raise
        except Exception as exc:
            outcome, detail = Outcome.FAILED, type(exc).__name__
            raise
        finally:
            if note.early is not None:  # shielded: a caller gone does not stop the append
                await asyncio.shield(note.early)
            else:
                await self.record(principal, action, note.target, outcome, detail or note.detail)

    async def record(
        self,
        principal: Principal,
        action: AuditAction,
        target: str,
        outcome: Outcome,
        detail: str = "",
    ) -> None:
        entry = AuditEntry.of(
            str(uuid.uuid4()), principal, action, target, outcome, self._clock.now(), detail
        )
        try:
            await self._log.append(entry)
        except RetryLater as exc:  # the bus or its disk, for now: one line, not a traceback
            log.warning("could not append audit entry %s %s: %s", action, target, exc)
        except Exception:
            log.exception("could not append audit entry %s %s", action, target)

    async def read(self, principal: Principal, query: AuditQuery, before: int | None) -> AuditPage:
        async with self.recording(principal, AuditAction.AUDIT_READ):
            require(principal, Action.READ_AUDIT)
            return await self._log.read(principal.workspace_id, query, before)
