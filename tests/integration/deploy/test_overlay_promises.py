"""Each Kubernetes overlay does what the comment at the top of its kustomization.yaml says,
rendered both by the tests' kustomize subset and by `kubectl kustomize` where it is
installed (a promise checked on one renderer only could hold there alone)."""

from __future__ import annotations

import re

import pytest

from tests.integration.deploy.manifests import K8S, kubectl_render, render

SECRET_KEYS = re.compile(r"PASSWORD|API_KEY|TOKEN|SECRET|SEED|CREDS", re.I)


@pytest.fixture(scope="module", params=["subset", "kubectl"])
def renderer(request: pytest.FixtureRequest):
    if request.param == "subset":
        return render
    if kubectl_render(K8S / "base") is None:
        pytest.skip("kubectl is not installed: rendered by the tests' kustomize subset only")
    return kubectl_render


def _of(objects: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def _container(deployment: dict) -> dict:
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    return container


def _secret_refs(deployment: dict) -> list[dict]:
    return [e["secretRef"] for e in _container(deployment).get("envFrom", []) if "secretRef" in e]


def _config(objects: list[dict]) -> dict[str, str]:
    [config_map] = _of(objects, "ConfigMap").values()
    return config_map["data"]


def _scalers(objects: list[dict]) -> list[tuple[str, int, int]]:
    """(name, min, max) of every autoscaler: the gateway's HPA and the consumers' KEDA."""
    hpas = [(n, o["spec"]["minReplicas"], o["spec"]["maxReplicas"])
            for n, o in _of(objects, "HorizontalPodAutoscaler").items()]  # fmt: skip
    keda = [(n, o["spec"]["minReplicaCount"], o["spec"]["maxReplicaCount"])
            for n, o in _of(objects, "ScaledObject").items()]  # fmt: skip
    return hpas + keda


def test_base_keeps_credentials_out_of_the_config_map_and_the_secret_optional(renderer) -> None:
    """base/configmap.yaml: credentials come from the optional Secret `memhive`, never from
    the ConfigMap."""
    objects = renderer(K8S / "base")
    assert not [key for key in _config(objects) if SECRET_KEYS.search(key)]
    for name, deployment in _of(objects, "Deployment").items():
        assert _secret_refs(deployment) == [{"name": "memhive", "optional": True}], name


def test_prod_pins_its_image_scales_up_and_requires_the_secret(renderer) -> None:
    """overlays/prod: a pinned image from your registry, more gateway replicas, two ingest
    replicas at least, and the Secret `memhive` mandatory."""
    objects = renderer(K8S / "overlays" / "prod")
    base = _of(render(K8S / "base"), "Deployment")
    deployments = _of(objects, "Deployment")
    assert set(deployments) == set(base)
    for name, deployment in deployments.items():
        image = _container(deployment)["image"]
        assert re.fullmatch(r"registry\.example\.com/memhive:\d+\.\d+\.\d+", image), image
        # Mandatory: no `optional: true`, so a pod does not start without the Secret.
        assert _secret_refs(deployment) == [{"name": "memhive"}], name
        assert deployment["metadata"]["namespace"] == "memhive"
    replicas = {n: d["spec"]["replicas"] for n, d in deployments.items()}
    assert replicas["memhive-query"] > base["memhive-query"]["spec"]["replicas"]
    scalers = {name: (low, high) for name, low, high in _scalers(objects)}
    assert scalers["memhive-query"][0] >= replicas["memhive-query"]
    assert replicas["memhive-ingest"] >= 2 and scalers["memhive-ingest"][0] >= 2
    strategy = deployments["memhive-ingest"]["spec"]["strategy"]["rollingUpdate"]
    assert strategy["maxUnavailable"] == 0  # a rolling update never stops ingestion


def test_dev_is_small_single_node_text_logs_and_no_exporter(renderer) -> None:
    """overlays/dev: one replica of everything (an autoscaler adds at most one more), a
    single-node NATS, logs as text, no trace exporter."""
    objects = renderer(K8S / "overlays" / "dev")
    for name, deployment in _of(objects, "Deployment").items():
        assert deployment["spec"]["replicas"] == 1, name
        assert deployment["metadata"]["namespace"] == "memhive-dev"
    for name, low, high in _scalers(objects):
        assert (low, high) == (1, 2), name
    config = _config(objects)
    assert config["MEMHIVE_NATS__REPLICAS"] == "1"
    assert config["MEMHIVE_TELEMETRY__LOG_FORMAT"] == "text"
    assert config["MEMHIVE_TELEMETRY__EXPORTER"] == "none"
