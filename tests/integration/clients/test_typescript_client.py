"""The TypeScript client (clients/typescript): built with its own TypeScript, then tested with
Node's test runner against a real `memhive run` that the Node tests start (see its
test/memhive.ts); and its package holds what npm would publish. Skipped, saying why, where
Node.js and npm are not installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "clients" / "typescript"
MEMHIVE = Path(sys.executable).with_name("memhive")

pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and shutil.which("npm")),
    reason="Node.js and npm are not installed: the TypeScript client is not tested here",
)


def npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"MEMHIVE_BIN": str(MEMHIVE), "npm_config_update_notifier": "false"}
    return subprocess.run(
        ["npm", *args], cwd=PACKAGE, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def installed() -> None:
    """The locked dev dependencies (TypeScript, Node's types, LangGraph.js for the store's
    tests and the example), once; again when a checkout predates one of them."""
    wanted = json.loads((PACKAGE / "package.json").read_text())["devDependencies"]
    if not all((PACKAGE / "node_modules" / name / "package.json").exists() for name in wanted):
        done = npm("ci", "--no-audit", "--no-fund", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.timeout(600)
def test_the_node_test_suite_passes_against_a_real_memhive(installed) -> None:
    done = npm("test", timeout=560)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert "# fail 0" in report and "# pass " in report, report[-3000:]


def test_the_package_publishes_its_build_and_nothing_else(installed) -> None:
    done = npm("pack", "--dry-run", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    files = {f["path"] for f in json.loads(done.stdout)[0]["files"]}
    assert {"package.json", "README.md", "dist/src/index.js", "dist/src/index.d.ts"} <= files
    assert not [f for f in files if f.startswith(("dist/test", "src/", "test/", "node_modules"))]
