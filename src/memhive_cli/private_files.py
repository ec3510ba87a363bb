"""Small JSON files only this user may read (the instance record, the stored token)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def write_private_json(path: Path, record: dict) -> None:
    """Mode 0600 in a 0700 directory before a byte is written, and written aside then
    renamed, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_suffix(".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a partial file left by an older write may have had another mode
    with os.fdopen(fd, "w") as out:
        json.dump(record, out)
    os.replace(partial, path)
