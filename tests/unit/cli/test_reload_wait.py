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
