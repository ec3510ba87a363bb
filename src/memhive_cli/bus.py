"""`memhive hook-credentials` and `memhive declare-streams`: the bus's users and streams."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from memhive_cli.load_settings import instance_settings

if TYPE_CHECKING:
    from memhive_adapters.nats.credentials import BusCredentials
    from memhive_settings import MemhiveSettings

RELOAD_WAIT_S = 5.0


def register_hook_credentials(sub) -> None:
    p = sub.add_parser(
        "hook-credentials",
        help="issue NATS credentials for a hook that publishes one workspace's upstream events",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--workspace", help="issue a new hook user for this workspace")
    which.add_argument("--revoke", metavar="PUBLIC_KEY", help="remove this hook user")
    p.set_defaults(command=_do_hook_credentials)


def register_declare_streams(sub) -> None:
    p = sub.add_parser(
        "declare-streams",
        help="declare memhive's streams and KV buckets (bus admin credentials; distributed mode)",
    )
    p.set_defaults(command=_do_declare_streams)


async def _do_hook_credentials(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.credentials import bus_dir
    from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth, new_user_nkey
    from memhive_contracts import bus_permissions
    from memhive_domain.principals import is_valid_workspace_id

    if getattr(args, "revoke", None):
        return await _revoke(args.revoke)
    if not is_valid_workspace_id(args.workspace):
        print("workspace: 1-64 of a-z 0-9 _ -")
        return 2
    settings = instance_settings()
    permissions = bus_permissions.hook(args.workspace)
    if not settings.nats.embedded:
        pair = new_user_nkey()
        print(describe_hook(args.workspace, pair.seed, pair.public_key))
        print("\nAdd this user to your nats-server's authorization users, then reload it:")
        print(_user_block(permissions, pair.public_key))
        await _audited(settings, args.workspace, "hook_issue", pair.public_key)
        return 0
    auth = EmbeddedBusAuth(bus_dir(settings))
    auth.ensure()
    pair = auth.add_hook(args.workspace)
    print(describe_hook(args.workspace, pair.seed, pair.public_key))
    if auth.reload_server():
        await _wait_until_accepted(settings, _nkey_user(settings, permissions.user, pair.seed))
        print("\nThe running nats-server reloaded its users: the hook can connect now.")
    else:
        print("\nNo embedded nats-server is running: the hook can connect once `memhive run` is.")
    await _audited(settings, args.workspace, "hook_issue", pair.public_key)
    return 0


async def _revoke(public_key: str) -> int:
    from memhive_adapters.nats.credentials import bus_dir
    from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
    from memhive_domain.audit import AuditAction

    from memhive_cli.operator import operations_recorder

    settings = instance_settings()
    if not settings.nats.embedded:
        print("remove the user with this nkey from your nats-server's config, then reload it")
        return 2
    auth = EmbeddedBusAuth(bus_dir(settings))
    workspaces = [h["workspace"] for h in auth.hooks() if h["public_key"] == public_key]
    if not auth.remove_hook(public_key):
        print(f"no hook user with public key {public_key}")
        return 1
    # The audit's connection is opened before the reload: one opened while nats-server
    # reloads is refused, and nothing tells when a reload that removes a user is over (a
    # first connection accepted may still come before it).
    async with operations_recorder(settings) as record:
        reloaded = auth.reload_server()
        print(f"revoked {public_key}" + ("; its connections are closed" if reloaded else ""))
        for workspace_id in workspaces:
            await record(workspace_id, AuditAction.HOOK_REVOKE, public_key)
    return 0


async def _audited(settings: MemhiveSettings, workspace_id: str, action: str, key: str) -> None:
    from memhive_domain.audit import AuditAction

    from memhive_cli.operator import record_operation

    await record_operation(settings, workspace_id, AuditAction(action), key)


def describe_hook(workspace_id: str, seed: str, public_key: str) -> str:
    from memhive_contracts.bus_permissions import hook, inbox_prefix

    permissions = hook(workspace_id)
    return f"""Hook credentials for workspace '{workspace_id}' (an NKey; the seed is shown once).

  MEMHIVE_HOOK_NKEY_SEED={seed}

public key:   {public_key}
may publish:  {permissions.publish[0]}  (nothing else: no reading, no commands)
inbox prefix: {inbox_prefix(permissions.user)}  (set it in the client: publish acks arrive there)"""


def _user_block(permissions, public_key: str) -> str:
    from memhive_adapters.nats.server_config import ConfiguredUser, render_user

    return render_user(ConfiguredUser(permissions, nkey=public_key))


def _nkey_user(settings: MemhiveSettings, user: str, seed: str) -> BusCredentials:
    from memhive_adapters.nats.credentials import BusCredentials, tls_context

    return BusCredentials(user, nkey_seed=seed, tls=tls_context(settings.nats))


async def _wait_until_accepted(settings: MemhiveSettings, credentials: BusCredentials) -> None:
    """nats-server reloads in the background after SIGHUP, refusing even known users for a
    moment: wait until `credentials` get in (a new hook's, or the admin's before an audit
    entry)."""
    from memhive_adapters.nats.connection import connect

    deadline = asyncio.get_running_loop().time() + RELOAD_WAIT_S
    while True:
        try:
            nc = await connect(settings.nats.url, name="memhive-hook-check", timeout_s=1.0,
                               credentials=credentials)  # fmt: skip
        except Exception:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)
            continue
        await nc.close()
        return


async def _do_declare_streams(args: argparse.Namespace) -> int:
    from memhive_adapters.nats.connection import connect, ensure_streams
    from memhive_adapters.nats.credentials import bus_credentials
    from memhive_contracts.bus_permissions import ADMIN

    settings = instance_settings()
    nc = await connect(
        settings.nats.url,
        name="memhive-declare-streams",
        timeout_s=settings.nats.connect_timeout_s,
        credentials=bus_credentials(settings, ADMIN),
    )
    try:
        await ensure_streams(nc.jetstream(), replicas=settings.nats.replicas)
    finally:
        await nc.close()
    print(f"streams and buckets declared on {settings.nats.url}")
    return 0
