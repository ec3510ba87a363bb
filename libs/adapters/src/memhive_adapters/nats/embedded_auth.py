"""The embedded bus's users: an NKey per service and per hook, kept in one directory.

`<bus dir>/<user>.nk` holds each service user's seed (0600, the directory 0700); the server
config (`nats-server.conf`) lists public keys only, with each user's permissions from
`memhive_contracts.bus_permissions`. Hook users are added while the server runs: the config
is rewritten and nats-server reloads it on SIGHUP (users are hot-reloadable), so nothing
restarts, and a revoked hook is cut off the same way. Hook seeds are printed once and never
stored; only their public keys are.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import signal
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import nkeys
from memhive_contracts import bus_permissions

from memhive_adapters.nats.credentials import SEED_SUFFIX
from memhive_adapters.nats.server_config import ConfiguredUser, render_server_config
from memhive_adapters.private_files import private_directory, write_private

CONFIG_FILE = "nats-server.conf"
PID_FILE = "nats-server.pid"
HOOKS_FILE = "hooks.json"
# JetStream's own default is 75% of the disk's free space when the server starts, fixed
# until it restarts: space freed later stays refused, and the lanes' share of the disk is
# not seen. memhive's low-space watermark (free_space.py) is checked on every write
# instead, so the server gets no limit of its own.
EMBEDDED_MAX_FILE_STORE = "1P"


@dataclass(frozen=True, slots=True)
class NKeyPair:
    seed: str
    public_key: str


def new_user_nkey() -> NKeyPair:
    seed = nkeys.encode_seed(secrets.token_bytes(32), nkeys.PREFIX_BYTE_USER)
    return NKeyPair(seed.decode(), nkeys.from_seed(seed).public_key.decode())


def public_key_of(seed: str) -> str:
    return nkeys.from_seed(seed.encode()).public_key.decode()


class EmbeddedBusAuth:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    @property
    def config_path(self) -> Path:
        return self.directory / CONFIG_FILE

    @property
    def pid_path(self) -> Path:
        return self.directory / PID_FILE

    def seed_path(self, user: str) -> Path:
        return self.directory / f"{user}{SEED_SUFFIX}"

    def ensure(self) -> Path:
        """A seed for every service user (kept across restarts), and the config; returns
        the config's path."""
        private_directory(self.directory)
        for user in bus_permissions.SERVICES:
            if not self.seed_path(user).is_file():
                write_private(self.seed_path(user), new_user_nkey().seed + "\n")
        self.write_config()
        return self.config_path

    def seed(self, user: str) -> str:
        return self.seed_path(user).read_text().strip()

    def write_config(self) -> None:
        users = [
            ConfiguredUser(perms, nkey=public_key_of(self.seed(user)))
            for user, perms in bus_permissions.SERVICES.items()
        ]
        users += [
            ConfiguredUser(bus_permissions.hook(h["workspace"]), nkey=h["public_key"])
            for h in self.hooks()
        ]
        text = render_server_config(
            users, pid_file=self.pid_path, max_file_store=EMBEDDED_MAX_FILE_STORE
        )
        write_private(self.config_path, text)

    def hooks(self) -> list[dict]:
        path = self.directory / HOOKS_FILE
        return json.loads(path.read_text()) if path.is_file() else []

    def add_hook(self, workspace_id: str) -> NKeyPair:
        """A new hook user for one workspace; the config is rewritten (reload the server)."""
        pair = new_user_nkey()
        entry = {
            "workspace": workspace_id,
            "public_key": pair.public_key,
            "created_at": datetime.now(UTC).isoformat(),
        }
        with self._locked():
            self._write_hooks([*self.hooks(), entry])
        return pair

    def remove_hook(self, public_key: str) -> bool:
        """Revokes a hook user; False if there is none with this key. After the reload the
        server also closes the hook's open connections (they no longer authenticate)."""
        with self._locked():
            hooks = self.hooks()
            kept = [h for h in hooks if h["public_key"] != public_key]
            if len(kept) == len(hooks):
                return False
            self._write_hooks(kept)
        return True

    def _write_hooks(self, hooks: list[dict]) -> None:
        write_private(self.directory / HOOKS_FILE, json.dumps(hooks, indent=1))
        self.write_config()

    @contextlib.contextmanager
    def _locked(self):
        """Two commands adding hooks at once must not lose one's entry."""
        fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def reload_server(self) -> bool:
        """SIGHUP the running embedded nats-server (from its pid file) so it reads the config
        again; False when none is running."""
        pid = _running_nats_server(self.pid_path)
        if pid is None:
            return False
        os.kill(pid, signal.SIGHUP)
        return True


def _running_nats_server(pid_path: Path) -> int | None:
    try:
        pid = int(pid_path.read_text().strip())
    except (OSError, ValueError):
        return None
    # A stale pid file may name another process now; SIGHUP would end most of them.
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        if cmdline.exists() and b"nats-server" not in cmdline.read_bytes():
            return None
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return None
    return pid
