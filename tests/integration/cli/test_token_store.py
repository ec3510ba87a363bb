"""`memhive login`'s token file (memhive_cli/token_store.py): this user's only."""

from __future__ import annotations

import stat
from pathlib import Path

from memhive_cli.token_store import (
    StoredToken,
    credentials_path,
    forget_token,
    store_token,
    stored_token,
)


def test_the_token_is_kept_readable_by_this_user_only(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    path = store_token(StoredToken("mh_a_b", "http://127.0.0.1:18080"), environ)

    assert path == tmp_path / "config" / "memhive" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stored_token(environ) == StoredToken("mh_a_b", "http://127.0.0.1:18080")
    assert [p.name for p in path.parent.iterdir()] == ["credentials.json"]  # no partial left

    assert forget_token(environ) and stored_token(environ) is None
    assert not forget_token(environ)


def test_a_loose_partial_file_does_not_widen_the_mode(tmp_path: Path) -> None:
    environ = {"HOME": str(tmp_path)}
    path = credentials_path(environ)
    path.parent.mkdir(parents=True)
    path.with_suffix(".partial").write_text("old")
    path.with_suffix(".partial").chmod(0o644)
    store_token(StoredToken("mh_c_d", "u"), environ)
    assert path == tmp_path / ".config" / "memhive" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
