"""An operation recorded in the audit log after the fact, right after a users' reload."""

from __future__ import annotations

import pytest
from memhive_adapters.nats import connection
from memhive_adapters.nats.refusal import CredentialsRefused
from memhive_domain.audit import AuditAction
from memhive_settings import MemhiveSettings

from memhive_cli import operator


class Connection:
    closed = False

    def jetstream(self):
        return self

    async def close(self) -> None:
        self.closed = True


class Trail:
    def __init__(self) -> None:
        self.recorded: list[tuple] = []

    async def record(self, principal, action, target, outcome) -> None:
        self.recorded.append((principal.workspace_id, action, target))


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """A bus refusing the first `refusals` connections (-1: all), then accepting."""
    trail, attempts, state = Trail(), [], {"refusals": 0, "error": None}

    async def connect(url, **kwargs):
        attempts.append(url)
        if state["error"] is not None:
            raise state["error"]
        if state["refusals"] != 0:
            state["refusals"] -= 1
            raise CredentialsRefused("refused the credentials (Authorization Violation)")
        return Connection()

    monkeypatch.setattr(connection, "connect", connect)
    monkeypatch.setattr(operator, "operator_trail", lambda js: trail)
    monkeypatch.setattr(operator, "RELOAD_GRACE_S", 0.3)
    settings = MemhiveSettings(data_dir=tmp_path)
    return settings, trail, attempts, state


async def record(settings) -> None:
    await operator.record_operation(settings, "acme", AuditAction.HOOK_REVOKE, "UKEY")


async def test_a_refusal_while_the_server_reloads_its_users_is_asked_again(bus, capsys) -> None:
    settings, trail, attempts, state = bus
    state["refusals"] = 2

    await record(settings)

    assert trail.recorded == [("acme", AuditAction.HOOK_REVOKE, "UKEY")]
    assert len(attempts) == 3 and capsys.readouterr().err == ""


async def test_credentials_still_refused_after_the_grace_are_reported(bus, capsys) -> None:
    settings, trail, attempts, state = bus
    state["refusals"] = -1

    await record(settings)

    assert trail.recorded == [] and len(attempts) > 1
    assert capsys.readouterr().err.startswith("not recorded in the audit log (refused")


async def test_an_unreachable_bus_is_reported_at_once(bus, capsys) -> None:
    settings, trail, attempts, state = bus
    state["error"] = ConnectionError("could not reach NATS")

    await record(settings)

    assert (trail.recorded, len(attempts)) == ([], 1)
    assert "could not reach NATS" in capsys.readouterr().err
