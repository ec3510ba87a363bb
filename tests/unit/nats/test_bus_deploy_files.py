"""docker compose and Kubernetes give every service its own bus user, as the table says."""

from __future__ import annotations

from pathlib import Path

import yaml
from memhive_adapters.nats.embedded_server import GO_MEMORY_LIMIT
from memhive_adapters.nats.server_config import password_env
from memhive_contracts import bus_permissions as perms

ROOT = Path(__file__).resolve().parents[3]


def test_compose_runs_each_service_as_its_own_user_and_nats_knows_every_password() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    nats = services["nats"]
    assert "ports" not in nats  # the bus is not published on the host
    assert "/etc/nats/nats-server.conf" in nats["command"]
    assert set(nats["environment"]) == {password_env(u) for u in perms.SERVICES}
    for service in services.values():
        command = service.get("command", [])
        if command[:1] == ["serve"]:
            env = service["environment"]
            assert env["MEMHIVE_NATS__USER"] == command[1]
            assert password_env(command[1]) in env["MEMHIVE_NATS__PASSWORD"]
            assert env["MEMHIVE_NATS__DECLARE_STREAMS"] == "false"
    assert services["bus-admin"]["environment"]["MEMHIVE_NATS__USER"] == perms.ADMIN


def test_the_nats_chart_loads_the_generated_users_with_every_password() -> None:
    """Each Deployment's own user is checked in tests/integration/deploy/test_kubernetes.py;
    here: the NATS servers include the generated users and get every password."""
    values = yaml.safe_load((ROOT / "deploy" / "k8s" / "nats" / "values.yaml").read_text())
    assert values["config"]["merge"]["$include"].endswith("/nats-server.conf")
    env = values["container"]["env"]
    passwords = {name: value for name, value in env.items() if name != GO_MEMORY_LIMIT}
    assert set(passwords) == {password_env(u) for u in perms.SERVICES}
    for name, value in passwords.items():
        user = value["valueFrom"]["secretKeyRef"]
        assert user["name"] == "memhive-bus" and password_env(user["key"]) == name


def test_the_nats_servers_collect_their_heap_before_the_pods_memory_limit() -> None:
    """Go's soft limit at ~90% of the container's: the heap is collected before the kernel
    would kill the server (Go's default lets it reach twice what is live)."""
    container = yaml.safe_load((ROOT / "deploy" / "k8s" / "nats" / "values.yaml").read_text())[
        "container"
    ]
    soft = _mib(container["env"][GO_MEMORY_LIMIT])
    hard = _mib(container["merge"]["resources"]["limits"]["memory"])
    assert 0.85 * hard <= soft <= 0.95 * hard, (soft, hard)


def _mib(quantity: str) -> float:
    """A Kubernetes (Mi, Gi) or Go (MiB, GiB) memory quantity, in MiB."""
    units = {"Mi": 1, "MiB": 1, "Gi": 1024, "GiB": 1024}
    number = quantity.rstrip("BGMi")
    return float(number) * units[quantity[len(number) :]]
