"""`memhive probe` against a real local HTTP server: the container healthcheck's exit code follows the service's answer."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from memhive_cli.probe import probe


class _Answers(http.server.BaseHTTPRequestHandler):
    codes = {"/healthz": 200, "/readyz": 503}

    def do_GET(self) -> None:
        self.send_response(self.codes.get(self.path, 404))
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_live_passes_and_unready_fails(port: int) -> None:
    assert probe("live", port, timeout_s=5) == 0
    assert probe("ready", port, timeout_s=5) == 1


def test_nothing_listening_fails_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    assert probe("ready", closed, timeout_s=2) == 1
    assert "/readyz" in capsys.readouterr().out
