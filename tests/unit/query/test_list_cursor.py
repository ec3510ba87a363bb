"""The list cursor is an opaque keyset position, checked without `assert` (so `python -O`
cannot let a forged one through): anything this API did not issue is a 422 naming `cursor`."""

from __future__ import annotations

import base64
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from memhive_domain.errors import InvalidInput
from memhive_domain.listing import ListPosition, decode_cursor, encode_cursor

MEMORY_ID = "0190b2a4-0000-7000-8000-000000000000"
FORGED = [
    "x:5",
    "o:-1",
    "o:10000000000",
    f"{10**30}:{MEMORY_ID}",
    f"-{10**20}:{MEMORY_ID}",
    f"5:{MEMORY_ID.upper()}",
    "5:not-a-uuid",
    "5",
    "²:" + MEMORY_ID,
]


def encoded(text: str) -> str:
    return "k1." + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_a_cursor_round_trips() -> None:
    position = ListPosition(datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC), MEMORY_ID)
    assert decode_cursor(encode_cursor(position)) == position and decode_cursor(None) is None


@pytest.mark.parametrize(
    "cursor", [encoded(f) for f in FORGED] + ["%%%", "k1.%%", base64.b64encode(b"o:5").decode()]
)
def test_a_forged_cursor_is_a_422(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="cursor"):
        decode_cursor(cursor)


def test_optimised_python_refuses_a_forged_cursor_too() -> None:
    probe = (
        "from memhive_domain.errors import InvalidInput\n"
        "from memhive_domain.listing import decode_cursor\n"
        "try:\n"
        f"    print(decode_cursor({encoded('x:5')!r}))\n"
        "except InvalidInput:\n"
        "    print('refused')\n"
    )
    run = subprocess.run(
        [sys.executable, "-O", "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.strip() == "refused", run.stderr
