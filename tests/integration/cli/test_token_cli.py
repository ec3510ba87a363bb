"""`memhive token` and `memhive audit` against a real nats-server: what an operator types."""

from __future__ import annotations

import uuid

import pytest
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory
from nats.js import JetStreamContext

from memhive_cli import commands
from tests.unit.cli.test_token_and_audit_cli import parse


async def run(*argv: str) -> int:
    args = parse(*argv)
    return await args.command(args)


@pytest.fixture(autouse=True)
def bus(bus_env: None) -> None:
    """The test server and its bus admin's credentials, as an operator's data dir has them."""
    assert commands.REGISTRY


async def test_an_operator_creates_lists_rotates_and_revokes_a_token(
    js: JetStreamContext, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens, workspace = await KvTokenDirectory.open(js), f"ws-{uuid.uuid4().hex[:8]}"

    assert await run("token", "create", "--workspace", workspace, "--user", "bot",
                     "--role", "agent", "--name", "ci", "--expires-in", "1d") == 0  # fmt: skip
    token = capsys.readouterr().out.strip()
    record = await tokens.lookup(token)
    assert token.startswith("mh_") and record.role.value == "agent" and record.name == "ci"

    assert await run("token", "list", "--workspace", workspace) == 0
    listing = capsys.readouterr().out
    assert record.id in listing and token not in listing

    assert await run("token", "rotate", record.id) == 0
    rotated = capsys.readouterr().out.strip()
    assert await tokens.resolve(token) is None and await tokens.resolve(rotated) is not None

    assert await run("token", "revoke", record.id) == 0
    assert await tokens.resolve(rotated) is None
    assert await run("token", "revoke", record.id) == 1

    capsys.readouterr()
    assert await run("audit", "list", "--workspace", workspace) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines[1:]] == [
        "token_revoke",
        "token_rotate",
        "token_create",
    ]
    assert all(line.split()[3] == "cli" for line in lines[1:])


async def test_bad_input_is_refused_with_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert await run("token", "create", "--workspace", "ws", "--user", "b",
                     "--expires-in", "soon") == 2  # fmt: skip
    assert "expires_in" in capsys.readouterr().err
    assert await run("audit", "list", "--workspace", "ws", "--action", "nope") == 2


async def test_the_dev_token_is_an_admin_memhive_token_kept_in_the_data_dir(
    js: JetStreamContext, tmp_path, nats_url: str
) -> None:
    from memhive_settings import MemhiveSettings

    from memhive_cli.dev_token import ensure_dev_token

    tokens = await KvTokenDirectory.open(js)
    settings = MemhiveSettings(data_dir=tmp_path, dev_workspace=f"ws-{uuid.uuid4().hex[:8]}")

    token = await ensure_dev_token(settings, tokens)

    assert token.startswith("mh_") and (tmp_path / "dev-token").stat().st_mode & 0o777 == 0o600
    assert await ensure_dev_token(settings, tokens) == token  # kept across restarts
    principal = await tokens.resolve(token)
    assert (principal.workspace_id, principal.role.value) == (settings.dev_workspace, "admin")
