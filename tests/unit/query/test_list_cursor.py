"""The list cursor is checked without `assert`, so `python -O` cannot let a forged one through."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest
from memhive_domain.errors import InvalidInput
from memhive_query.routes.memories import _cursor, _offset

FORGED = ["x:5", "o:-1", "o:", "o:5:6", "o:²", "%%%", base64.b64encode(b"\xff").decode()]


def encoded(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def test_a_cursor_round_trips() -> None:
    assert _offset(_cursor(40)) == 40 and _offset(None) == 0


@pytest.mark.parametrize("cursor", [encoded(f) if ":" in f else f for f in FORGED])
def test_a_forged_cursor_is_a_422(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="cursor"):
        _offset(cursor)


def test_optimised_python_refuses_a_forged_cursor_too() -> None:
    probe = (
        "from memhive_domain.errors import InvalidInput\n"
        "from memhive_query.routes.memories import _offset\n"
        "try:\n"
        f"    print(_offset({encoded('x:5')!r}))\n"
        "except InvalidInput:\n"
        "    print('refused')\n"
    )
    run = subprocess.run(
        [sys.executable, "-O", "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.strip() == "refused", run.stderr
