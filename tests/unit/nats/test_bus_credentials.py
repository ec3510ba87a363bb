"""Where a process's bus credentials come from, and how the generated ones are kept."""

from __future__ import annotations

import stat
from pathlib import Path

from memhive_adapters.nats.credentials import bus_credentials
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth, public_key_of
from memhive_contracts import bus_permissions as perms
from memhive_settings import MemhiveSettings


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_generated_seeds_and_config_are_private_and_kept_across_starts(tmp_path: Path) -> None:
    auth = EmbeddedBusAuth(tmp_path / "bus")
    config = auth.ensure()
    seeds = {user: auth.seed(user) for user in perms.SERVICES}
    auth.ensure()

    assert {user: auth.seed(user) for user in perms.SERVICES} == seeds
    assert _mode(auth.directory) == 0o700
    assert _mode(config) == 0o600
    assert all(_mode(auth.seed_path(user)) == 0o600 for user in perms.SERVICES)
    text = config.read_text()
    assert all(public_key_of(seed) in text and seed not in text for seed in seeds.values())


def test_a_hook_is_added_by_public_key_only(tmp_path: Path) -> None:
    auth = EmbeddedBusAuth(tmp_path)
    auth.ensure()
    pair = auth.add_hook("acme")

    text = auth.config_path.read_text()
    assert pair.public_key in text and pair.seed not in text
    assert "memhive.upstream.*.*.acme" in text
    assert pair.seed not in (tmp_path / "hooks.json").read_text()
    assert _mode(tmp_path / "hooks.json") == 0o600
    assert not auth.reload_server()  # no server running: nothing to signal


def test_settings_credentials_win_over_generated_ones(tmp_path: Path) -> None:
    EmbeddedBusAuth(tmp_path / "bus").ensure()
    settings = MemhiveSettings(
        data_dir=tmp_path, nats={"user": "ingest", "password": "s3cret", "tls_ca_file": None}
    )
    options = bus_credentials(settings, perms.INGEST).connect_options()
    assert options == {"inbox_prefix": "_INBOX_ingest", "user": "ingest", "password": "s3cret"}


def test_generated_credentials_are_used_when_settings_have_none(tmp_path: Path) -> None:
    auth = EmbeddedBusAuth(tmp_path / "bus")
    auth.ensure()
    options = bus_credentials(MemhiveSettings(data_dir=tmp_path), perms.EMBED).connect_options()
    assert options == {"inbox_prefix": "_INBOX_embed", "nkeys_seed_str": auth.seed(perms.EMBED)}


def test_without_any_credentials_the_connection_is_anonymous(tmp_path: Path) -> None:
    credentials = bus_credentials(MemhiveSettings(data_dir=tmp_path), perms.QUERY)
    assert credentials.anonymous
    assert credentials.connect_options() == {"inbox_prefix": "_INBOX_query"}
