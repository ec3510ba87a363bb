"""The Kubernetes overlays render offline and every object validates: core objects against
the Kubernetes JSON schemas shipped in kubernetes-validate (strict: no unknown field),
KEDA ScaledObjects against KEDA's own CRD vendored in deploy/k8s/schemas (made strict the
way `kubectl apply` is: see its README); then what the design needs is checked."""

from __future__ import annotations

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.integration.deploy.crd_schema import vendored_crd
from tests.integration.deploy.manifests import K8S, OVERLAYS, kubectl_render, render

KUBERNETES_VERSION = "1.30.0"  # the oldest minor still supported upstream
SCALED_OBJECT = vendored_crd(K8S / "schemas" / "keda.sh_scaledobjects.yaml", "v1alpha1")
# What KEDA's nats-jetstream scaler reads from a trigger's metadata (its documentation);
# the CRD types that metadata as any map of strings, so a misspelt key passes it.
JETSTREAM_TRIGGER_REQUIRED = {"natsServerMonitoringEndpoint", "account", "stream", "consumer"}
JETSTREAM_TRIGGER_OPTIONAL = {"lagThreshold", "activationLagThreshold", "useHttps"}
LAG_SCALED = {"memhive-ingest": "ingest", "memhive-embed": "embed",
              "memhive-link-classifier": "link-classifier", "memhive-bulletin": "bulletin"}  # fmt: skip
SERVICES = {"memhive-query", *LAG_SCALED}


def _of(objects: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


@pytest.fixture(scope="module", params=OVERLAYS)
def overlay(request: pytest.FixtureRequest) -> tuple[str, list[dict]]:
    return request.param, render(K8S / "overlays" / request.param)


def validate_scaled_object(o: dict) -> None:
    """As the API server would: KEDA's schema for the body, and the ObjectMeta every kind
    shares (the CRD leaves `metadata` to the server), checked here on a stand-in object."""
    assert (o["apiVersion"], o["kind"]) == (SCALED_OBJECT.api_version, SCALED_OBJECT.kind)
    jsonschema.validate(o, SCALED_OBJECT.schema)
    stand_in = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": o["metadata"]}
    kubernetes_validate.validate(stand_in, KUBERNETES_VERSION, strict=True)
    for trigger in o["spec"]["triggers"]:
        if trigger["type"] == "nats-jetstream":
            keys = set(trigger["metadata"])
            assert keys >= JETSTREAM_TRIGGER_REQUIRED, o["metadata"]["name"]
            assert keys <= JETSTREAM_TRIGGER_REQUIRED | JETSTREAM_TRIGGER_OPTIONAL, keys


def test_every_object_validates_against_its_schema(overlay) -> None:
    _, objects = overlay
    for o in objects:
        if o["kind"] == "ScaledObject":
            validate_scaled_object(o)
        else:
            kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)


def test_the_offline_renderer_agrees_with_kubectl_kustomize(overlay) -> None:
    name, objects = overlay
    theirs = kubectl_render(K8S / "overlays" / name)
    if theirs is None:
        pytest.skip("kubectl is not installed: the offline rendering is not cross-checked")

    def key(o):
        return o["kind"], o["metadata"]["name"]

    assert sorted(objects, key=key) == sorted(theirs, key=key)


def test_a_misspelt_field_fails_validation() -> None:
    [deployment] = [o for o in render(K8S / "overlays" / "dev") if o["kind"] == "Deployment"][:1]
    deployment["spec"]["replica"] = 2
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    scaled = next(o for o in render(K8S / "base") if o["kind"] == "ScaledObject")
    validate_scaled_object(scaled)
    misspelt = [
        {"spec": {**scaled["spec"], "minReplicas": 1}},  # minReplicaCount
        {"spec": {**scaled["spec"], "scaleTargetRef": {"name": "x", "apiversion": "apps/v1"}}},
        {"spec": {**scaled["spec"], "triggers": [{**scaled["spec"]["triggers"][0], "meta": {}}]}},
        {"metadata": {**scaled["metadata"], "label": {"a": "b"}}},
    ]
    for change in misspelt:
        with pytest.raises(jsonschema.ValidationError):
            validate_scaled_object({**scaled, **change})
    trigger = scaled["spec"]["triggers"][0]
    typo = {**trigger, "metadata": {**trigger["metadata"], "lagTreshold": "10"}}
    with pytest.raises(AssertionError):
        validate_scaled_object({**scaled, "spec": {**scaled["spec"], "triggers": [typo]}})


def test_the_vendored_crd_is_strict_where_it_lists_fields_and_open_where_it_maps() -> None:
    spec = SCALED_OBJECT.schema["properties"]["spec"]
    trigger = spec["properties"]["triggers"]["items"]
    assert spec["additionalProperties"] is False and trigger["additionalProperties"] is False
    assert trigger["properties"]["metadata"]["additionalProperties"] == {"type": "string"}
    assert SCALED_OBJECT.schema["required"] == ["spec"]  # KEDA's own, not ours


def test_every_service_is_probed_bounded_budgeted_and_unprivileged(overlay) -> None:
    _, objects = overlay
    deployments = _of(objects, "Deployment")
    assert set(deployments) == SERVICES
    budgets = _of(objects, "PodDisruptionBudget")
    for name, d in deployments.items():
        pod = d["spec"]["template"]["spec"]
        [container] = pod["containers"]
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert {"cpu", "memory"} <= set(container["resources"]["requests"])
        assert "memory" in container["resources"]["limits"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        labels = d["spec"]["selector"]["matchLabels"]
        assert budgets[name]["spec"]["selector"]["matchLabels"] == labels


def test_consumers_scale_on_their_jetstream_lag_and_the_gateway_on_cpu(overlay) -> None:
    _, objects = overlay
    scaled = _of(objects, "ScaledObject")
    assert set(scaled) == set(LAG_SCALED)
    for name, durable in LAG_SCALED.items():
        [trigger] = scaled[name]["spec"]["triggers"]
        assert scaled[name]["spec"]["scaleTargetRef"]["name"] == name
        assert trigger["type"] == "nats-jetstream"
        assert (trigger["metadata"]["stream"], trigger["metadata"]["consumer"]) == (
            "MEMHIVE", durable
        )  # fmt: skip
    [hpa] = _of(objects, "HorizontalPodAutoscaler").values()
    assert hpa["spec"]["scaleTargetRef"]["name"] == "memhive-query"
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"


def test_nats_is_three_servers_with_jetstream_and_memhive_asks_for_r3() -> None:
    values = yaml.safe_load((K8S / "nats" / "values.yaml").read_text())
    assert values["config"]["cluster"] == {"enabled": True, "replicas": 3}
    assert values["config"]["jetstream"]["enabled"] is True
    assert values["config"]["monitor"]["port"] == 8222  # KEDA's lag source
    [config_map] = [o for o in render(K8S / "overlays" / "prod") if o["kind"] == "ConfigMap"]
    assert config_map["data"]["MEMHIVE_NATS__REPLICAS"] == "3"


def test_external_dependencies_have_example_values() -> None:
    for name in ("qdrant-values.yaml", "opensearch-values.yaml"):
        assert yaml.safe_load((K8S / "external" / name).read_text())


def test_each_service_is_its_own_bus_user_and_the_admin_declares_the_streams(overlay) -> None:
    _, objects = overlay
    for deployment in _of(objects, "Deployment").values():
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        env = {e["name"]: e for e in container["env"]}
        assert env["MEMHIVE_NATS__USER"]["value"] == container["args"][1]
        secret = env["MEMHIVE_NATS__PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert secret == {"name": "memhive-bus", "key": container["args"][1]}
    [config_map] = _of(objects, "ConfigMap").values()
    assert config_map["data"]["MEMHIVE_NATS__DECLARE_STREAMS"] == "false"
    [job] = _of(objects, "Job").values()
    [container] = job["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["declare-streams"]
