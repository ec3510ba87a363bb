"""The bench's stack gets distinct ports even when the OS offers the same one twice."""

from __future__ import annotations

import pytest

from bench import running_stack


class OfferedPorts:
    """A socket whose bind to port 0 gets the next of `offered`."""

    def __init__(self, offered: list[int]) -> None:
        self._offered = offered

    def __call__(self) -> OfferedPorts:
        return self

    def __enter__(self) -> OfferedPorts:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def bind(self, address: tuple[str, int]) -> None:
        self._port = self._offered.pop(0)

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self._port)


def test_a_port_offered_again_is_not_handed_out_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(running_stack, "_handed_out", set())
    monkeypatch.setattr(running_stack.socket, "socket", OfferedPorts([41000, 41000, 41001]))
    assert [running_stack.free_port(), running_stack.free_port()] == [41000, 41001]
