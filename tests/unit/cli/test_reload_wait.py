"""After a reload of the embedded server's users, the CLI waits until it lets them in."""

from __future__ import annotations

import pytest
from memhive_adapters.nats import connection
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.refusal import CredentialsRefused
from memhive_settings import MemhiveSettings

from memhive_cli import bus


class Connection:
    async def close(self) -> None:
        pass


@pytest.fixture
def refusing(monkeypatch: pytest.MonkeyPatch):
    """A bus refusing the first `state["refusals"]` connections (-1: every one)."""
    attempts, state = [], {"refusals": 0}

    async def connect(url, **kwargs):
        attempts.append(kwargs["credentials"].user)
        if state["refusals"] != 0:
            state["refusals"] -= 1
            raise CredentialsRefused("refused the credentials (Authorization Violation)")
        return Connection()

    monkeypatch.setattr(connection, "connect", connect)
    monkeypatch.setattr(bus, "RELOAD_WAIT_S", 0.3)
    return attempts, state


ADMIN = BusCredentials("memhive-admin", password="secret")


async def test_refusals_while_the_server_reloads_are_waited_out(refusing, tmp_path) -> None:
    attempts, state = refusing
    state["refusals"] = 2

    await bus._wait_until_accepted(MemhiveSettings(data_dir=tmp_path), ADMIN)

    assert attempts == ["memhive-admin"] * 3


async def test_refusals_past_the_wait_are_raised(refusing, tmp_path) -> None:
    attempts, state = refusing
    state["refusals"] = -1

    with pytest.raises(CredentialsRefused):
        await bus._wait_until_accepted(MemhiveSettings(data_dir=tmp_path), ADMIN)
    assert len(attempts) > 1


async def test_a_revocation_is_recorded_over_a_connection_opened_before_the_reload(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys
) -> None:
    """Once nats-server reloads its users it refuses new connections for a moment, and a
    first one accepted after the signal may still come before the reload: CI once saw the
    audit entry of a revocation refused so. A bus that refuses every connection from the
    reload on: the entry is still written."""
    from memhive_adapters.nats.credentials import bus_dir
    from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth

    from memhive_cli import operator

    monkeypatch.setenv("MEMHIVE_DATA_DIR", str(tmp_path))
    auth = EmbeddedBusAuth(bus_dir(MemhiveSettings(data_dir=tmp_path)))
    auth.ensure()
    public_key = auth.add_hook("acme").public_key
    reloaded, recorded = [], []

    class AdminConnection(Connection):
        def jetstream(self) -> None:
            return None

    async def connect(url, **kwargs):
        if reloaded:
            raise CredentialsRefused("refused the credentials (Authorization Violation)")
        return AdminConnection()

    class Trail:
        async def record(self, principal, action, target, outcome):
            recorded.append((principal.workspace_id, action.value, target))

    monkeypatch.setattr(connection, "connect", connect)
    monkeypatch.setattr(operator, "operator_trail", lambda js: Trail())
    monkeypatch.setattr(EmbeddedBusAuth, "reload_server", lambda self: reloaded.append(1) or True)

    assert await bus._do_hook_credentials(bus.argparse.Namespace(revoke=public_key)) == 0

    assert reloaded and recorded == [("acme", "hook_revoke", public_key)]
    assert "not recorded" not in capsys.readouterr().err
