"""The operator behind a CLI command, as the audit log names it: an admin of the workspace
the command acts on, credential `cli:<os user>`. Token changes, reindex requests and hook
credentials are recorded with it (docs/architecture.md, "Audit log").

Imports happen in the functions: `memhive --help` must stay light.
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhive_application.audit_trail import AuditTrail
    from memhive_domain.audit import AuditAction
    from memhive_domain.principals import Principal
    from memhive_settings import MemhiveSettings
    from nats.js import JetStreamContext


def operator(workspace_id: str) -> Principal:
    from memhive_domain.principals import Principal, Role

    return Principal(workspace_id, "cli", Role.ADMIN, credential=f"cli:{getpass.getuser()}")


def operator_trail(js: JetStreamContext) -> AuditTrail:
    from memhive_adapters.clock import SystemClock
    from memhive_adapters.nats.audit_log import JetStreamAuditLog
    from memhive_application.audit_trail import AuditTrail

    return AuditTrail(JetStreamAuditLog(js), SystemClock())


@asynccontextmanager
async def recording_in_each(
    trail: AuditTrail, workspace_ids: Sequence[str], action: AuditAction, target: str
) -> AsyncIterator[None]:
    """One entry per workspace the block acts on (or one for the whole deployment when it
    names none), each with the block's outcome."""
    from memhive_domain.audit import DEPLOYMENT

    async with AsyncExitStack() as entries:
        for workspace_id in workspace_ids or (DEPLOYMENT,):
            entry = trail.recording(operator(workspace_id), action, target)
            await entries.enter_async_context(entry)
        yield


async def record_operation(
    settings: MemhiveSettings, workspace_id: str, action: AuditAction, target: str
) -> None:
    """Records an operation already done, over a connection of its own as the bus admin. The
    operation stands either way: a bus that cannot be reached is reported, not raised."""
    async with operations_recorder(settings) as record:
        await record(workspace_id, action, target)


@asynccontextmanager
async def operations_recorder(
    settings: MemhiveSettings,
) -> AsyncIterator[Callable[[str, AuditAction, str], Awaitable[None]]]:
    """`record(workspace_id, action, target)` for operations done inside the block, over one
    connection as the bus admin, opened on entry: a command that reloads nats-server's users
    opens it before, since a connection opened while the server reloads is refused. When
    the bus cannot be reached, each record says so on stderr instead."""
    from memhive_adapters.nats.connection import connect
    from memhive_adapters.nats.credentials import bus_credentials
    from memhive_contracts.bus_permissions import ADMIN
    from memhive_domain.audit import Outcome

    nc = None
    try:
        nc = await connect(
            settings.nats.url,
            name="memhive-cli-audit",
            timeout_s=settings.nats.connect_timeout_s,
            credentials=bus_credentials(settings, ADMIN),
        )
    except Exception as exc:  # the operation is done: say what is missing and go on
        missing = f"not recorded in the audit log ({exc})"
    if nc is None:  # yielded outside the handler: the block's own errors are not chained to it

        async def unrecorded(workspace_id: str, action: AuditAction, target: str) -> None:
            print(missing, file=sys.stderr)

        yield unrecorded
        return
    trail = operator_trail(nc.jetstream())

    async def record(workspace_id: str, action: AuditAction, target: str) -> None:
        await trail.record(operator(workspace_id), action, target, Outcome.OK)

    try:
        yield record
    finally:
        await nc.close()
