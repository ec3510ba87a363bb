"""`memhive --help`, `token` and `dead-letters` answer at once: they import nothing heavy
(no litellm, model, engines or web stack). Counted in a fresh interpreter, not timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth

HEAVY = (
    "litellm",
    "openai",
    "tiktoken",
    "numpy",
    "onnx",
    "onnxruntime",
    "tokenizers",
    "safetensors",
    "qdrant_edge",
    "qdrant_client",
    "tantivy",
    "opensearchpy",
    "fastapi",
    "starlette",
    "uvicorn",
    "mcp",
    "opentelemetry.sdk",
    "aiohttp",  # nats-py's WebSocket transport only (memhive_cli/lean_bus_client.py)  # the API is fine: publishing carries the trace context
    "memhive_query",
    "memhive_ingest",
    "memhive_embed",
    "memhive_bulletin",
    "memhive_link_classifier",
)
# Measured: --help 167 modules, dead-letters 440, token create 509 (nats-py with aiohttp,
# pydantic settings, protobuf); the eager CLI loaded over 3,000 for --help.
MAX_MODULES = 700

RUN_AND_LIST_MODULES = """
import json, sys
from memhive_cli.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as exit:
    code = exit.code
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(m for m, v in sys.modules.items() if v)}, out)
"""


def _imported_by(
    tmp_path: Path,
    nats_url: str,
    bus: EmbeddedBusAuth,
    *argv: str,
    stdin: bytes = b"",
    **env_more: str,
) -> tuple[int, list[str]]:
    report = tmp_path / "modules.json"
    env = os.environ | {
        "MEMHIVE_NATS__URL": nats_url,
        "MEMHIVE_NATS__CREDENTIALS_DIR": str(bus.directory),
        "MEMHIVE_DATA_DIR": str(tmp_path),
        **env_more,
    }
    command = [sys.executable, "-c", RUN_AND_LIST_MODULES, str(report), *argv]
    subprocess.run(command, env=env, input=stdin, capture_output=True, timeout=120, check=False)
    outcome = json.loads(report.read_text())
    return outcome["code"], outcome["modules"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["token", "create", "--workspace", "light", "--user", "ada"],
        ["dead-letters", "list", "--limit", "1"],
    ],
    ids=["help", "token", "dead-letters"],
)
def test_a_command_loads_nothing_heavy(
    tmp_path: Path, nats_url: str, bus_auth: EmbeddedBusAuth, argv: list[str]
) -> None:
    code, modules = _imported_by(tmp_path, nats_url, bus_auth, *argv)
    assert code == 0
    heavy = sorted({h for h in HEAVY for m in modules if m == h or m.startswith(f"{h}.")})
    assert heavy == [], f"`memhive {' '.join(argv)}` imports {heavy}"
    assert len(modules) < MAX_MODULES, len(modules)


def test_help_loads_neither_settings_nor_the_bus_client(
    tmp_path: Path, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    """`memhive --help` parses arguments only: ~0.15 s instead of ~0.5 s with pydantic
    settings and nats-py (aiohttp) loaded."""
    code, modules = _imported_by(tmp_path, nats_url, bus_auth, "--help")
    assert code == 0
    loaded = {m.split(".")[0] for m in modules}
    assert not loaded & {"pydantic_settings", "nats", "aiohttp", "memhive_settings"}, loaded


def test_a_memory_command_loads_the_client_and_nothing_heavy(
    tmp_path: Path, nats_url: str, bus_auth: EmbeddedBusAuth
) -> None:
    """`memhive recall` talks HTTP through memhive_client: httpx and pydantic, no web stack,
    no model (here with no gateway to answer: exit 2, one line)."""
    from tests.integration.conftest import free_port

    gateway = {"MEMHIVE_URL": f"http://127.0.0.1:{free_port()}", "MEMHIVE_TOKEN": "mh_x_y"}
    code, modules = _imported_by(tmp_path, nats_url, bus_auth, "recall", "q", **gateway)
    assert code == 2
    heavy = sorted({h for h in HEAVY for m in modules if m == h or m.startswith(f"{h}.")})
    assert heavy == [], heavy
    assert "memhive_client" in modules and len(modules) < MAX_MODULES, len(modules)


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd"])
def test_an_agents_hook_loads_neither_httpx_nor_the_client(
    tmp_path: Path, nats_url: str, bus_auth: EmbeddedBusAuth, event: str
) -> None:
    """Claude Code waits for `memhive hook` at every session's start: ~0.2 s on the standard
    library's urllib, against ~0.7 s with httpx and the client's pydantic models (here with
    no gateway to answer: exit 0, nothing added)."""
    from tests.integration.conftest import free_port

    gateway = {"MEMHIVE_URL": f"http://127.0.0.1:{free_port()}", "MEMHIVE_TOKEN": "mh_x_y"}
    memory = tmp_path / "claude" / "projects" / "-app" / "memory"
    memory.mkdir(parents=True)
    (memory / "a.md").write_text("---\ntype: project\n---\nReleases leave on Wednesdays.\n")
    said = {"hook_event_name": event, "session_id": "s",
            "transcript_path": str(memory.parent / "s.jsonl")}  # fmt: skip
    argv = ["hook", "claude-code", "--share-auto-memory"]
    code, modules = _imported_by(
        tmp_path, nats_url, bus_auth, *argv, stdin=json.dumps(said).encode(), **gateway
    )
    assert code == 0
    loaded = {m.split(".")[0] for m in modules}
    assert not loaded & {"httpx", "httpcore", "rich", "memhive_client", "aiohttp"}, loaded
