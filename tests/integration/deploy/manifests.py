"""Rendering the Kubernetes overlays offline: a pure-Python subset of kustomize (exactly
the features deploy/k8s uses: resources, namespace, labels, images, replicas and strategic
merge patches by kind and name), checked against `kubectl kustomize` where it exists."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path

import yaml

from tests.integration.deploy.image import ROOT

K8S = ROOT / "deploy" / "k8s"
OVERLAYS = ("dev", "prod")
SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "labels", "images", "replicas",
             "patches"}  # fmt: skip


def render_overlays() -> dict[str, list[dict]]:
    return {name: render(K8S / "overlays" / name) for name in OVERLAYS}


def render(directory: Path) -> list[dict]:
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    unknown = set(spec) - SUPPORTED
    if unknown:
        raise ValueError(f"{directory}: kustomization fields this renderer lacks: {unknown}")
    objects: list[dict] = []
    for resource in spec.get("resources", []):
        path = directory / resource
        objects += render(path) if path.is_dir() else _documents(path)
    for patch in spec.get("patches", []):
        for document in _documents(directory / patch["path"]):
            target = _find(objects, document["kind"], document["metadata"]["name"])
            _merge(target, document)
    for label in spec.get("labels", []):
        for o in objects:
            o["metadata"].setdefault("labels", {}).update(label["pairs"])
    for image in spec.get("images", []):
        for o in objects:
            for container in _containers(o):
                _retag(container, image)
    for replicas in spec.get("replicas", []):
        _find(objects, "Deployment", replicas["name"])["spec"]["replicas"] = replicas["count"]
    if "namespace" in spec:
        for o in objects:
            o["metadata"]["namespace"] = spec["namespace"]
    return objects


def kubectl_render(directory: Path) -> list[dict] | None:
    """`kubectl kustomize`'s output, or None where kubectl is not installed."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    done = subprocess.run(
        [kubectl, "kustomize", str(directory)], capture_output=True, text=True, timeout=60,
        check=True,
    )  # fmt: skip
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def _documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _find(objects: list[dict], kind: str, name: str) -> dict:
    [found] = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def _merge(target: dict, patch: dict) -> None:
    """Strategic merge: maps merge, lists of named maps merge by name, null deletes."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        elif _named_list(value) and _named_list(target.get(key)):
            by_name = {item["name"]: item for item in target[key]}
            for item in value:
                if item["name"] in by_name:
                    _merge(by_name[item["name"]], item)
                else:
                    target[key].append(copy.deepcopy(item))
        else:
            target[key] = copy.deepcopy(value)


def _named_list(value) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(i, dict) and "name" in i for i in value)
    )


def _containers(o: dict) -> list[dict]:
    pod = o.get("spec", {}).get("template", {}).get("spec", {})
    return [*pod.get("containers", []), *pod.get("initContainers", [])]


def _retag(container: dict, image: dict) -> None:
    name, _, tag = container["image"].partition(":")
    if name != image["name"]:
        return
    container["image"] = f"{image.get('newName', name)}:{image.get('newTag', tag)}"
