"""Distributed mode: services whose credentials come from settings, as compose and k8s run
them, against a real nats-server: deploy/nats/nats-server.conf (passwords from the
environment), NKey users (MEMHIVE_NATS__NKEY_SEED), a token server (__TOKEN) and an
operator-mode server with a .creds file (__CREDS_FILE)."""

from __future__ import annotations

import secrets
from pathlib import Path

import nats.errors
import nkeys
import pytest
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth, new_user_nkey
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.nats.refusal import CredentialsRefused
from memhive_adapters.nats.server_config import password_env
from memhive_adapters.nats.stream_check import StreamsNotDeclared
from memhive_adapters.runtime.infrastructure import open_infrastructure
from memhive_contracts import bus_permissions as perms
from memhive_contracts import streams, subjects
from memhive_settings import MemhiveSettings
from nats.errors import NoRespondersError
from pydantic import SecretStr

from tests.integration.conftest import free_port
from tests.integration.nats.operator_jwts import Identity, Operator

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


def _with(tmp_path: Path, url: str, **nats) -> MemhiveSettings:
    return MemhiveSettings(data_dir=tmp_path, nats={"url": url} | nats)


async def _round_trip(infra, key: str) -> bytes:
    records = await infra.js.key_value(streams.MEMORIES_BUCKET)
    await records.put(key, f"written over {key}".encode())
    return (await records.get(key)).value


async def test_a_service_connects_with_an_nkey_seed_from_settings_as_that_user(
    tmp_path: Path,
) -> None:
    """MEMHIVE_NATS__NKEY_SEED wins over the credentials directory (whose stale seed the
    server does not know), and the connection has that user's rights, not more."""
    auth = EmbeddedBusAuth(tmp_path / "bus")
    auth.ensure()
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / f"{perms.INGEST}.nk").write_text(new_user_nkey().seed)
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(), config_file=auth.config_path)
    async with server:
        admin = await open_infrastructure(
            _with(tmp_path, server.url, credentials_dir=auth.directory), name="admin"
        )  # declares the streams
        from_dir = _with(tmp_path, server.url, credentials_dir=stale, declare_streams=False)
        with pytest.raises(CredentialsRefused):
            await open_infrastructure(from_dir, name="ingest", user=perms.INGEST)
        settings = _with(
            tmp_path, server.url, credentials_dir=stale, declare_streams=False,
            nkey_seed=auth.seed(perms.INGEST),
        )  # fmt: skip
        ingest = await open_infrastructure(settings, name="ingest", user=perms.INGEST)
        try:
            assert await _round_trip(ingest, "ws.nkey") == b"written over ws.nkey"
            with pytest.raises((nats.errors.TimeoutError, NoRespondersError)):  # not ingest's
                await ingest.js.publish(f"{subjects.SAVE_MEMORY}.ws", b"x", timeout=1)
            wrong = settings.model_copy(
                update={"nats": settings.nats.model_copy(update={"nkey_seed": SecretStr(
                    new_user_nkey().seed)})}
            )  # fmt: skip
            with pytest.raises(CredentialsRefused):
                await open_infrastructure(wrong, name="ingest", user=perms.INGEST)
        finally:
            await ingest.close()
            await admin.close()


async def test_a_token_from_settings_reaches_a_token_server(tmp_path: Path) -> None:
    token = secrets.token_urlsafe(24)
    config = tmp_path / "token.conf"
    config.write_text(f'authorization {{ token: "{token}" }}\n')
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(), config_file=config)
    async with server:
        for refused in (None, "not-the-token"):
            settings = _with(tmp_path, server.url, credentials_dir=tmp_path / "none",
                             **({"token": refused} if refused else {}))  # fmt: skip
            with pytest.raises(CredentialsRefused):
                await open_infrastructure(settings, name="token")
        infra = await open_infrastructure(
            _with(tmp_path, server.url, token=token), name="token"
        )  # the one user of a token server: declares streams too
        try:
            assert await _round_trip(infra, "ws.token") == b"written over ws.token"
        finally:
            await infra.close()


async def test_a_creds_file_from_settings_reaches_an_operator_mode_server(
    tmp_path: Path,
) -> None:
    """A .creds file (user JWT + seed), as `nsc` makes for servers run by an operator."""
    operator = Operator.new()
    config = tmp_path / "operator.conf"
    config.write_text(operator.server_config())
    creds = operator.creds_file(tmp_path / "memhive.creds", "memhive")
    stranger = operator.creds_file(
        tmp_path / "stranger.creds", "stranger", account=Identity.new(nkeys.PREFIX_BYTE_ACCOUNT)
    )  # signed by an account the operator never vouched for
    server = EmbeddedNatsServer(tmp_path / "nats", port=free_port(), config_file=config)
    async with server:
        for refused in ({"creds_file": stranger}, {"credentials_dir": tmp_path / "none"}):
            with pytest.raises(CredentialsRefused):
                await open_infrastructure(_with(tmp_path, server.url, **refused), name="x")
        infra = await open_infrastructure(_with(tmp_path, server.url, creds_file=creds), name="c")
        try:
            assert await _round_trip(infra, "ws.creds") == b"written over ws.creds"
        finally:
            await infra.close()
