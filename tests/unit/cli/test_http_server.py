"""The HTTP server memhive runs: uvicorn with the httptools parser (C), not h11 (pure
Python), which cost about 0.3 ms of CPU per request more (docs/benchmarks.md, issue 25)."""

from __future__ import annotations

from fastapi import FastAPI

from memhive_cli.http_server import http_server


def test_requests_are_parsed_by_httptools() -> None:
    config = http_server(FastAPI(), "127.0.0.1", 0).config
    config.load()
    assert config.http_protocol_class.__name__ == "HttpToolsProtocol"
