"""The image's Python environment, built the way the Dockerfile builds it, without Docker:
the builder stage's build context (only what it COPYs, after .dockerignore) in a temporary
directory, its `uv sync` step run offline from the uv cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.integration.deploy.dockerfile import DockerIgnore, build_context, parse_stages

ROOT = Path(__file__).resolve().parents[3]
UV = ROOT / ".tools" / "bin" / "uv"
SYNC_TIMEOUT_S = 240
# What uv prints when --offline needs something the cache does not hold.
OFFLINE_MISSES = ("offline", "not found in the cache", "network connectivity is disabled")


class CacheMiss(RuntimeError):
    """The uv cache lacks a locked package, so the offline install cannot run here."""


@dataclass(frozen=True)
class ImageEnvironment:
    venv: Path
    runtime_env: dict[str, str]  # the final stage's ENV, PATH pointing into `venv`
    copied: list[str]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


def sync_command() -> list[str]:
    builder = _builder()
    [command] = [c for c in builder.run_commands() if c.startswith("uv sync")]
    return command.split()


def build_image_environment(workdir: Path) -> ImageEnvironment:
    stages = parse_stages(ROOT / "Dockerfile")
    builder, runtime = _builder(stages), stages[-1]
    context = workdir / "src"
    ignore = DockerIgnore((ROOT / ".dockerignore").read_text())
    copied = build_context(ROOT, builder.copy_sources(), ignore, context)
    venv = workdir / "app" / ".venv"
    env = {
        **os.environ,
        **builder.env(),
        "UV_PROJECT_ENVIRONMENT": str(venv),
        "UV_PYTHON": sys.executable,  # the same CPython minor as the image's base
        # Bounded: no bytecode compilation, hard links out of the cache instead of copies.
        "UV_COMPILE_BYTECODE": "0",
        "UV_LINK_MODE": "hardlink",
    }
    command = [str(UV), *sync_command()[1:], "--offline", "--quiet"]
    done = subprocess.run(
        command, cwd=context, env=env, capture_output=True, text=True, timeout=SYNC_TIMEOUT_S
    )
    if done.returncode != 0:
        if any(miss in done.stderr.lower() for miss in OFFLINE_MISSES):
            raise CacheMiss(done.stderr.strip().splitlines()[-1])
        raise AssertionError(f"{' '.join(command)} failed:\n{done.stderr}")
    shutil.rmtree(context)  # the runtime stage copies the environment and nothing else
    runtime_env = {**runtime.env(), "HOME": str(workdir)}
    runtime_env["PATH"] = runtime_env["PATH"].replace("/app/.venv/bin", str(venv / "bin"))
    runtime_env["PATH"] = runtime_env["PATH"].replace("$PATH", "/usr/bin:/bin")
    return ImageEnvironment(venv, runtime_env, copied)


def _builder(stages=None):
    stages = stages or parse_stages(ROOT / "Dockerfile")
    [builder] = [s for s in stages if s.name == "builder"]
    return builder
