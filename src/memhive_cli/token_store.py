"""The token `memhive login` keeps for the CLI's memory commands: one file in the user's
config directory (`$XDG_CONFIG_HOME/memhive/credentials.json`, else
`~/.config/memhive/credentials.json`), mode 0600 in a 0700 directory. MEMHIVE_TOKEN, when
set, wins over it. Light: json, os and pathlib only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memhive_cli.private_files import write_private_json

FILE_NAME = "credentials.json"


@dataclass(frozen=True, slots=True)
class StoredToken:
    token: str
    url: str  # the gateway it was checked against (shown, not used to choose)


def credentials_path(environ: Mapping[str, str]) -> Path:
    config = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")) / ".config")
    return Path(config).expanduser() / "memhive" / FILE_NAME


def store_token(stored: StoredToken, environ: Mapping[str, str]) -> Path:
    path = credentials_path(environ)
    write_private_json(path, {"token": stored.token, "url": stored.url})
    return path


def stored_token(environ: Mapping[str, str]) -> StoredToken | None:
    try:
        record = json.loads(credentials_path(environ).read_text())
        return StoredToken(str(record["token"]), str(record.get("url", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget_token(environ: Mapping[str, str]) -> bool:
    """True when a stored token was removed."""
    try:
        credentials_path(environ).unlink()
    except FileNotFoundError:
        return False
    return True
