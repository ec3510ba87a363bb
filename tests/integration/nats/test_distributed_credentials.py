"""Distributed mode: nats-server with deploy/nats/nats-server.conf (passwords from the
environment) and services whose credentials come from settings, as compose and k8s run it."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.nats.refusal import CredentialsRefused
from memhive_adapters.nats.server_config import password_env
from memhive_adapters.nats.stream_check import StreamsNotDeclared
from memhive_adapters.runtime.infrastructure import open_infrastructure
from memhive_contracts import bus_permissions as perms
from memhive_contracts import streams
from memhive_settings import MemhiveSettings

from tests.integration.conftest import free_port

pytestmark = pytest.mark.timeout(120)

DEPLOY_CONFIG = Path(__file__).resolve().parents[3] / "deploy" / "nats" / "nats-server.conf"


def _settings(tmp_path: Path, url: str, user: str, password: str) -> MemhiveSettings:
    nats = {"url": url, "user": user, "password": password, "declare_streams": user == "admin"}
    return MemhiveSettings(data_dir=tmp_path, nats=nats)


async def test_services_connect_by_password_and_only_the_admin_declares_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passwords = {user: secrets.token_hex(16) for user in perms.SERVICES}
    for user, password in passwords.items():
        monkeypatch.setenv(password_env(user), password)  # nats-server reads them at start
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(), config_file=DEPLOY_CONFIG)
    async with server:
        ingest = _settings(tmp_path, server.url, perms.INGEST, passwords[perms.INGEST])
        with pytest.raises(StreamsNotDeclared, match="memhive declare-streams"):
            await open_infrastructure(ingest, name="ingest", user=perms.INGEST)

        wrong = _settings(tmp_path, server.url, perms.INGEST, "not-the-password")
        with pytest.raises(CredentialsRefused):
            await open_infrastructure(wrong, name="ingest", user=perms.INGEST)

        admin_settings = _settings(tmp_path, server.url, perms.ADMIN, passwords[perms.ADMIN])
        admin = await open_infrastructure(admin_settings, name="admin")
        service = await open_infrastructure(ingest, name="ingest", user=perms.INGEST)
        try:
            records = await service.js.key_value(streams.MEMORIES_BUCKET)
            await records.put("ws.m1", b"written by ingest")
            admin_view = await admin.js.key_value(streams.MEMORIES_BUCKET)
            assert (await admin_view.get("ws.m1")).value == b"written by ingest"
        finally:
            await service.close()
            await admin.close()
