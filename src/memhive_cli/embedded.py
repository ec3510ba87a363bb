"""`memhive run`: the whole system on one machine, no Docker, no accounts.

nats-server runs as a child process (JetStream under the data dir); the embedded engines
(qdrant-edge, tantivy) allow one owning process per directory, so the services that use
them share this process and one Infrastructure, still talking to each other only over
NATS, each service as its own bus user with its own connection (the admin connection only
bootstraps). Ingest uses no engine and runs as a child process (`service_process.py`), so
the record's writes take the second core.
"""

from __future__ import annotations

from contextlib import AsyncExitStack

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.credentials import bus_dir
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.nats.write_recovery import WriteRecovery
from memhive_adapters.runtime.infrastructure import Infrastructure, open_infrastructure
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_contracts.bus_permissions import QUERY
from memhive_query.app import create_app
from memhive_settings import MemhiveSettings
from memhive_telemetry import install_telemetry

from memhive_cli.announce import instance_record
from memhive_cli.data_dir import nats_port
from memhive_cli.dev_token import ensure_dev_token
from memhive_cli.garbage_collection import freeze_startup_objects
from memhive_cli.http_server import HttpServer, http_server, serve_announcing
from memhive_cli.process_tree import ProcessTree
from memhive_cli.service_process import ServiceProcess
from memhive_cli.services import BACKGROUND_SERVICES
from memhive_cli.signals import stop_on_signals

# Services that use no embedded engine, each run as a process of its own.
OWN_PROCESS = frozenset({"ingest"})


async def run_embedded(settings: MemhiveSettings) -> None:
    """The caller holds the data dir's lock (`data_dir.data_dir_lock`)."""
    install_telemetry(settings.telemetry)
    async with AsyncExitStack() as stack:
        if settings.nats.embedded:
            await _start_nats(settings, stack)
        infra = await open_infrastructure(settings, name="memhive")
        stack.push_async_callback(infra.close)
        token = await ensure_dev_token(settings, infra.tokens)
        children = await _start_background(infra, stack)
        gateway = await _connect_service(infra, QUERY, stack)
        app = await create_app(gateway, ProcessTree(children))
        server = http_server(app, settings.http_host, settings.http_port)
        stop_on_signals(lambda: _stopping(server, children))
        with instance_record(settings) as record:

            def listening(port: int) -> None:  # the banner once it is true, port 0 resolved
                record(port)
                freeze_startup_objects()
                print(banner(settings, token, port), flush=True)

            await serve_announcing(server, listening)


def _stopping(server: HttpServer, children: list[ServiceProcess]) -> None:
    """A stop signal: the HTTP server drains, and the children's exits are expected from
    now on (the same signal may reach them directly)."""
    server.should_exit = True
    for child in children:
        child.stopping()


async def _start_nats(settings: MemhiveSettings, stack: AsyncExitStack) -> None:
    config = EmbeddedBusAuth(bus_dir(settings)).ensure()
    server = EmbeddedNatsServer(
        settings.nats_store_dir,
        port=nats_port(settings),
        config_file=config,
        memory_limit=int(settings.nats.embedded_memory_limit),
    )
    await server.start()
    stack.push_async_callback(server.stop)
    # After a full disk, the server writes again only once restarted: done when space is back.
    recovery = WriteRecovery(server, FreeSpace(settings.data_dir, int(settings.storage.min_free)))
    await recovery.start()
    stack.push_async_callback(recovery.stop)


async def _start_background(infra: Infrastructure, stack: AsyncExitStack) -> list[ServiceProcess]:
    """Starts every background service; returns those in processes of their own."""
    names = infra.settings.run_services or list(BACKGROUND_SERVICES)
    unknown = sorted(set(names) - set(BACKGROUND_SERVICES))
    if unknown:
        raise SystemExit(f"unknown service(s) {unknown}; choose from {sorted(BACKGROUND_SERVICES)}")
    children = [ServiceProcess(name, infra.settings) for name in names if name in OWN_PROCESS]
    for child in children:
        await child.start()
        stack.push_async_callback(child.stop)
    here = [n for n in names if n not in OWN_PROCESS]
    make = BACKGROUND_SERVICES
    group = ServiceGroup([await make[n](await _connect_service(infra, n, stack)) for n in here])
    await group.start()
    stack.push_async_callback(group.stop)
    return children


async def _connect_service(infra: Infrastructure, user: str, stack: AsyncExitStack):
    service = await infra.connect_as(user, name=f"memhive-{user}")
    stack.push_async_callback(service.close)
    return service


def banner(settings: MemhiveSettings, token: str, port: int) -> str:
    url = f"http://{settings.http_host}:{port}"
    return f"""
memhive is up: {url}  (API docs: {url}/docs, data: {settings.data_dir})
dev workspace '{settings.dev_workspace}', token: {token}

  export MEMHIVE_TOKEN={token}
  curl -s -X POST '{url}/v1/memories?wait=indexed' -H "Authorization: Bearer $MEMHIVE_TOKEN" \\
       -H 'Content-Type: application/json' \\
       -d '{{"kind": "decision", "body": "We deploy on Fridays only with a rollback plan"}}'
  curl -s -X POST {url}/v1/recall -H "Authorization: Bearer $MEMHIVE_TOKEN" \\
       -H 'Content-Type: application/json' -d '{{"query": "when do we deploy?"}}'

MCP (Claude Code):
  claude mcp add --transport http memhive {url}/mcp --header "Authorization: Bearer {token}"
Ctrl-C stops it; data survives restarts.
""".strip("\n")
