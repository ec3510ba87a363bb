"""The environment each memhive service gets from docker-compose.yml and from the rendered
Kubernetes manifests, read from the YAML itself."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import yaml

# A value the manifests take from a Secret: the check only needs it to be present.
SECRET_PLACEHOLDER = "from-a-secret"


def compose_project(compose_file: Path, variables: dict[str, str]) -> dict:
    """The compose file as `docker compose config` would read it: interpolated with
    `variables` (the .env), YAML anchors and merge keys resolved."""
    return yaml.safe_load(interpolate(compose_file.read_text(), variables))


def compose_memhive_envs(
    compose_file: Path, variables: dict[str, str]
) -> dict[str, tuple[str, dict[str, str]]]:
    """compose service name -> (memhive service it serves, its environment)."""
    found = {}
    for name, spec in compose_project(compose_file, variables)["services"].items():
        command = spec.get("command") or []
        if command[:1] == ["serve"]:
            found[name] = (command[1], _as_env(spec.get("environment") or {}))
    return found


def k8s_memhive_envs(objects: Iterable[dict]) -> dict[str, tuple[str, dict[str, str]]]:
    """Deployment name -> (memhive service, env from its envFrom ConfigMaps/Secrets and env)."""
    objects = list(objects)
    config_maps = {
        o["metadata"]["name"]: o.get("data", {}) for o in objects if o["kind"] == "ConfigMap"
    }
    secrets = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Secret"}
    found = {}
    for o in objects:
        if o["kind"] != "Deployment":
            continue
        [container] = [
            c
            for c in o["spec"]["template"]["spec"]["containers"]
            if c.get("args", [])[:1] == ["serve"]
        ]
        env: dict[str, str] = {}
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                env.update(config_maps[source["configMapRef"]["name"]])
            elif "secretRef" in source and source["secretRef"]["name"] in secrets:
                secret = secrets[source["secretRef"]["name"]]
                env.update(
                    {
                        k: SECRET_PLACEHOLDER
                        for k in {**secret.get("data", {}), **secret.get("stringData", {})}
                    }
                )
        for var in container.get("env", []):
            env[var["name"]] = str(var["value"]) if "value" in var else SECRET_PLACEHOLDER
        found[o["metadata"]["name"]] = (container["args"][1], env)
    return found


def _as_env(environment: dict | list) -> dict[str, str]:
    if isinstance(environment, list):
        return dict(item.split("=", 1) for item in environment)
    return {k: "" if v is None else str(v) for k, v in environment.items()}


def interpolate(text: str, variables: dict[str, str]) -> str:
    """Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}` (`$$` is a literal `$`)."""

    def value(match: re.Match) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3)
        if name in variables and (variables[name] or op != ":-"):
            return variables[name]
        if op == ":?":
            raise KeyError(f"{name}: {arg}")
        return arg or ""

    text = re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", value, text.replace("$$", "\0"))
    return text.replace("\0", "$")


def env_file(path: Path) -> dict[str, str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))
