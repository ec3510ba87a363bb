"""`memhive` itself: arguments that look like options, and failures the user can fix."""

from __future__ import annotations

import pytest

from memhive_cli import main as cli
from memhive_cli.main import attach_opaque_values


@pytest.mark.parametrize("token", ["--abc", "-abc", "-", "-1", "plain"])
def test_a_token_may_start_with_a_dash(token: str) -> None:
    args = cli._parser().parse_args(attach_opaque_values(["mcp", "--token", token]))
    assert args.token == token


def test_the_equals_form_is_left_alone() -> None:
    assert attach_opaque_values(["mcp", "--token=--abc", "--url", "u"]) == [
        "mcp",
        "--token=--abc",
        "--url",
        "u",
    ]


def test_an_unreachable_bus_is_one_line_and_exit_code_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.integration.conftest import free_port

    monkeypatch.setenv("MEMHIVE_NATS__URL", f"nats://127.0.0.1:{free_port()}")
    monkeypatch.setenv("MEMHIVE_NATS__CONNECT_TIMEOUT_S", "0.5")
    for argv in (["token", "create", "--workspace", "w", "--user", "u"], ["dead-letters", "list"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("memhive: could not reach NATS at nats://127.0.0.1:"), err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_only_operator_commands_hide_the_websocket_transport(monkeypatch) -> None:
    import sys

    from memhive_cli.lean_bus_client import hide_websocket_transport

    saved = sys.modules.pop("aiohttp", None)
    try:
        monkeypatch.setenv("MEMHIVE_NATS__URL", "nats://127.0.0.1:4222")
        assert not hide_websocket_transport("memhive_cli.commands")  # run, serve, mcp
        monkeypatch.setenv("MEMHIVE_NATS__URL", "ws://nats:8080")
        assert not hide_websocket_transport("memhive_cli.tokens")
        monkeypatch.setenv("MEMHIVE_NATS__URL", "nats://127.0.0.1:4222")
        assert hide_websocket_transport("memhive_cli.tokens")
        assert sys.modules["aiohttp"] is None
    finally:
        sys.modules.pop("aiohttp", None)
        if saved is not None:
            sys.modules["aiohttp"] = saved


def test_verbose_is_read_wherever_it_is_given_before_a_double_dash() -> None:
    from memhive_cli.main import verbose_first

    assert verbose_first(["recall", "q", "--verbose"]) == ["--verbose", "recall", "q"]
    assert verbose_first(["save", "fact", "--", "--verbose"]) == ["save", "fact", "--", "--verbose"]
    args = cli._parser().parse_args(verbose_first(["token", "list", "--verbose"]))
    assert args.verbose is True
