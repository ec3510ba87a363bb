"""The Docker image builds and every service starts in it, proven without a Docker engine:
the builder stage's install runs offline from the uv cache on exactly the files the
Dockerfile COPYs, and each service then starts its preflight (imports, settings, telemetry)
in that environment with exactly the variables compose and the Kubernetes manifests set."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.integration.deploy.dockerfile import DockerIgnore, parse_stages
from tests.integration.deploy.environments import compose_memhive_envs, env_file, k8s_memhive_envs
from tests.integration.deploy.image import (
    ROOT,
    CacheMiss,
    ImageEnvironment,
    build_image_environment,
    sync_command,
)
from tests.integration.deploy.manifests import render_overlays

PREFLIGHT = Path(__file__).with_name("service_preflight.py")
pytestmark = pytest.mark.timeout(420)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> ImageEnvironment:
    try:
        return build_image_environment(tmp_path_factory.mktemp("image"))
    except CacheMiss as miss:
        pytest.skip(f"the uv cache lacks a locked package, offline install impossible: {miss}")


def test_the_builder_installs_the_locked_runtime_environment_only() -> None:
    command = sync_command()
    assert {"--frozen", "--no-dev"} <= set(command)
    assert "--no-editable" in command  # the runtime stage gets the environment, no sources


def test_uv_in_the_image_is_the_version_the_makefile_uses() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [version] = re.findall(r"^UV_VERSION := (\S+)", makefile, re.M)
    assert f"uv=={version}" in (ROOT / "Dockerfile").read_text()


def test_the_runtime_stage_is_non_root_offline_and_health_checked() -> None:
    stages = parse_stages(ROOT / "Dockerfile")
    runtime = stages[-1]
    ops = dict(runtime.instructions)
    assert len(stages) >= 2 and runtime.name is None
    assert ops["USER"].split(":")[0] not in {"0", "root"}
    assert ops["COPY"].startswith("--from=builder /app/.venv")
    env = runtime.env()
    assert env["HF_HUB_OFFLINE"] == "1"
    assert env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert "memhive" in ops["HEALTHCHECK"] and "probe" in ops["HEALTHCHECK"]


def test_dockerignore_keeps_local_state_out_but_not_what_the_build_needs() -> None:
    ignore = DockerIgnore((ROOT / ".dockerignore").read_text())
    assert ignore.excludes(".venv/bin/python")
    assert ignore.excludes("libs/domain/src/memhive_domain/__pycache__/x.pyc")
    assert ignore.excludes("tests/unit/test_x.py")
    for needed in ("README.md", "pyproject.toml", "uv.lock", "libs/domain/pyproject.toml"):
        assert not ignore.excludes(needed)


def test_the_image_environment_installs_and_its_entrypoint_runs(image: ImageEnvironment) -> None:
    assert "README.md" in image.copied  # pyproject.toml's readme: hatchling needs it
    done = _run_in(image, ["memhive", "--help"])
    assert done.returncode == 0, done.stderr
    assert "serve" in done.stdout
    for editable in image.venv.glob("lib/python*/site-packages/*.pth"):
        assert "/src" not in editable.read_text(), f"{editable.name} points at sources"


def test_every_compose_and_kubernetes_service_starts_with_exactly_its_environment(
    image: ImageEnvironment, tmp_path: Path
) -> None:
    cases = [
        {"label": f"compose:{name}", "service": service, "env": {**image.runtime_env, **env}}
        for name, (service, env) in compose_memhive_envs(
            ROOT / "docker-compose.yml", env_file(ROOT / "deploy" / "compose.env.example")
        ).items()
    ]
    for overlay, objects in render_overlays().items():
        cases += [
            {"label": f"k8s/{overlay}:{name}", "service": service,
             "env": {**image.runtime_env, **env}}
            for name, (service, env) in k8s_memhive_envs(objects).items()
        ]  # fmt: skip
    assert {c["service"] for c in cases} == {
        "query", "ingest", "embed", "link_classifier", "bulletin"
    }  # fmt: skip
    cases_file = tmp_path / "cases.json"
    cases_file.write_text(json.dumps(cases))

    done = _run_in(image, ["python", str(PREFLIGHT), str(cases_file)])

    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["label"] for r in results] == [c["label"] for c in cases], done.stderr
    failures = {r["label"]: r["error"] for r in results if not r["ok"]}
    assert not failures, "\n".join(f"{k}:\n{v}" for k, v in failures.items())


def _run_in(image: ImageEnvironment, command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, env=image.runtime_env, capture_output=True, text=True, timeout=120
    )
