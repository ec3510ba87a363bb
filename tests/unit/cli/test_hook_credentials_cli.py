"""`memhive hook-credentials` without an embedded server: it prints the user to add."""

from __future__ import annotations

import argparse
import re

import nkeys
import pytest

from memhive_cli.bus import _do_hook_credentials


async def test_for_an_external_server_it_prints_a_seed_and_the_matching_user_entry(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys
) -> None:
    monkeypatch.setenv("MEMHIVE_NATS__EMBEDDED", "false")
    monkeypatch.setenv("MEMHIVE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MEMHIVE_NATS__CONNECT_TIMEOUT_S", "0.2")  # no bus here: the audit

    assert await _do_hook_credentials(argparse.Namespace(workspace="acme", revoke=None)) == 0
    printed = capsys.readouterr()
    out = printed.out
    assert "not recorded in the audit log" in printed.err  # said, and the seed still given
    seed = re.search(r"MEMHIVE_HOOK_NKEY_SEED=(\S+)", out).group(1)
    public_key = nkeys.from_seed(seed.encode()).public_key.decode()
    assert f'nkey: "{public_key}"' in out
    assert '"memhive.upstream.*.*.acme",' in out and '"_INBOX_hook_acme.>",' in out
    assert not (tmp_path / "bus").exists()  # nothing kept: the operator adds the user


async def test_a_bad_workspace_id_is_refused(capsys) -> None:
    assert await _do_hook_credentials(argparse.Namespace(workspace="Acme!", revoke=None)) == 2
    assert "workspace" in capsys.readouterr().out
