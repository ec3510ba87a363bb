"""The bus's CLI side: `memhive hook-credentials` issues a hook user that the running
server accepts at once (no restart) and whose events become memories; `memhive token
create` reaches the token bucket with the admin's credentials from the bus directory."""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime

import pytest
from memhive.v1 import upstream_pb2 as pb
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import BusCredentials
from memhive_contracts import bus_permissions, streams, subjects
from memhive_domain.principals import Principal, Role
from memhive_domain.upstream import upstream_memory_id

from memhive_cli.bus import _do_hook_credentials
from tests.integration.stack.conftest import Stack, Workspace
from tests.integration.stack.test_upstream_events import listed_ids, wait_for
from tests.unit.cli.test_token_and_audit_cli import parse

pytestmark = pytest.mark.timeout(240)


async def test_an_issued_hook_connects_at_once_and_its_note_becomes_a_memory(
    stack: Stack, workspace: Workspace, nats_url: str, bus_env: None, capsys
) -> None:
    assert await _do_hook_credentials(argparse.Namespace(workspace=workspace.id)) == 0
    printed = capsys.readouterr().out
    seed = re.search(r"MEMHIVE_HOOK_NKEY_SEED=(\S+)", printed).group(1)
    assert "the hook can connect now" in printed

    user = bus_permissions.hook_user(workspace.id)
    hook = await connect(
        nats_url, name="hook", timeout_s=5, credentials=BusCredentials(user, nkey_seed=seed)
    )
    note = pb.NoteAdded(
        event_id=f"note-{workspace.id}", workspace_id=workspace.id, note_id="n1", body="via hook"
    )
    note.occurred_at.FromDatetime(datetime.now(UTC))
    try:
        await hook.jetstream().publish(
            subjects.for_workspace(subjects.NOTE_ADDED, workspace.id),
            note.SerializeToString(),
            headers={streams.MSG_ID_HEADER: note.event_id},
        )
    finally:
        await hook.close()

    memory_id = upstream_memory_id(workspace.id, "note:n1")

    async def listed():
        return await listed_ids(workspace) == [memory_id]

    await wait_for(listed)


async def test_token_create_uses_the_admins_credentials(
    stack: Stack, bus_env: None, capsys
) -> None:
    args = parse("token", "create", "--workspace", "cli-tokens", "--user", "ops")
    assert await args.command(args) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    async with stack.client(token) as client:
        assert (await client.get("/v1/memories")).status_code == 200


async def test_issuing_and_revoking_hook_credentials_is_audited(
    stack: Stack, workspace: Workspace, bus_env: None, capsys
) -> None:
    assert await _do_hook_credentials(argparse.Namespace(workspace=workspace.id)) == 0
    public_key = re.search(r"public key:\s+(\S+)", capsys.readouterr().out).group(1)
    revoke = argparse.Namespace(workspace=None, revoke=public_key)
    assert await _do_hook_credentials(revoke) == 0
    assert "not recorded" not in capsys.readouterr().err

    admin = await stack.infra.tokens.issue(Principal(workspace.id, "root", Role.ADMIN))
    async with stack.client(admin) as client:
        items = (await client.get("/v1/admin/audit", params={"target": public_key})).json()
    assert [(e["action"], e["user"], e["outcome"]) for e in items["items"]] == [
        ("hook_revoke", "cli", "ok"),
        ("hook_issue", "cli", "ok"),
    ]
    assert items["items"][0]["credential"].startswith("cli:")
