"""The Kubernetes deployment of the public app (deploy/kubernetes/), checked offline: no cluster, no network.

Every document of ``explorer.yaml`` is validated, strictly (no unknown field), against the Kubernetes API
schemas that the ``kubernetes-validate`` package bundles (1.33 and its newest, 1.37). The sizes are checked
against the arithmetic of docs/deploy.md, from the measured figures: the quiet-machine rush
(benchmarks/kernel_rush_2026-12-02_quiet.json, forked mode) and the per-viewer kernel after its page drew the
charts (140 MB USS, docs/hosting-history.md's first table).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

ROOT = Path(__file__).resolve().parents[2]
KUBE = ROOT / "deploy" / "kubernetes"
VERSIONS = ("1.33.0", "1.37.0")
KERNEL_AFTER_CHARTS_MIB = 140.0  # docs/hosting-history.md's first table: kernel per viewer after the page drew its charts, USS
POOL_FLOOR = 4  # voila.json's default_pool_size


def documents() -> list[dict]:
    return [d for d in yaml.safe_load_all((KUBE / "explorer.yaml").read_text(encoding="utf-8")) if d]


def by_kind(kind: str) -> dict:
    (found,) = [d for d in documents() if d["kind"] == kind]
    return found


def mebibytes(quantity: str) -> float:
    value, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(Mi|Gi)", quantity).groups()
    return float(value) * (1024 if unit == "Gi" else 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_document_is_valid_against_the_kubernetes_schemas(version):
    kinds = []
    for doc in documents():
        kubernetes_validate.validate(doc, version, strict=True)  # raises on a wrong or unknown field
        kinds.append(doc["kind"])
    assert sorted(kinds) == ["Deployment", "HorizontalPodAutoscaler", "Ingress", "PodDisruptionBudget", "Service"]


def test_a_broken_manifest_is_refused_by_the_validator():
    """The validator is not a no-op: an unknown field and a wrong type are both refused."""
    deployment = by_kind("Deployment")
    wrong = json.loads(json.dumps(deployment))
    wrong["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, VERSIONS[0], strict=True)
    unknown = json.loads(json.dumps(deployment))
    unknown["spec"]["template"]["spec"]["containers"][0]["resource"] = {}  # 'resources' misspelt
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(unknown, VERSIONS[0], strict=True)


def test_the_pieces_point_at_each_other():
    deployment, service, ingress, hpa, pdb = (by_kind(k) for k in (
        "Deployment", "Service", "Ingress", "HorizontalPodAutoscaler", "PodDisruptionBudget"))
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": deployment["metadata"]["name"]}
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["name"]
    assert container["ports"][0]["containerPort"] == 8866  # the Dockerfile's --port
    assert '"--port=8866"' in (KUBE / "Dockerfile").read_text()
    assert hpa["spec"]["minReplicas"] >= 2 and pdb["spec"]["minAvailable"] == 1


def test_the_websocket_stays_on_its_pod_by_a_cookie():
    notes = by_kind("Ingress")["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/affinity-mode"] == "persistent"
    assert notes["nginx.ingress.kubernetes.io/session-cookie-name"] == "voila_route"
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600  # as deploy/nginx.conf.in
    assert notes["nginx.ingress.kubernetes.io/proxy-next-upstream"] == "off"  # never replay a page load


def test_requests_and_limits_follow_the_measured_cost_per_viewer():
    """Hand arithmetic of docs/deploy.md: request = server + template + seats x kernel USS (quiet rush, forked);
    limit = server + template + seats x 140 MiB (charts drawn) + the pool's floor x kernel USS."""
    forked = next(r for r in json.loads((ROOT / "benchmarks" / "kernel_rush_2026-12-02_quiet.json").read_text())["runs"]
                  if r["mode"] == "forked")
    container = by_kind("Deployment")["spec"]["template"]["spec"]["containers"][0]
    seats = int(next(a.split("=")[1] for a in container["args"] if a.startswith("--ExplorerVoila.max_kernels=")))
    assert seats == 20
    base = forked["server_rss_mb"] + forked["template_mb"]["rss"]  # 261.7 + 117.1 MiB
    request = base + seats * forked["kernel_uss_mb_median"]  # + 20 x 84.4 = 2,066.8 MiB
    limit = base + seats * KERNEL_AFTER_CHARTS_MIB + POOL_FLOOR * forked["kernel_uss_mb_median"]  # 3,516.4 MiB
    assert round(request) == 2067 and round(limit) == 3516
    resources = container["resources"]
    assert request <= mebibytes(resources["requests"]["memory"]) <= request * 1.05  # rounded up, by little
    assert limit <= mebibytes(resources["limits"]["memory"]) <= limit * 1.05
    assert resources["requests"]["cpu"] == "1"  # one Voila process per 1-2 cores (docs/deploy.md, scaling out)


def test_the_class_hub_values_are_beside_the_manifests():
    text = (KUBE / "explorer.yaml").read_text()
    assert "../jupyterhub/z2jh-values.yaml" in text
    values = yaml.safe_load((ROOT / "deploy" / "jupyterhub" / "z2jh-values.yaml").read_text(encoding="utf-8"))
    assert values["singleuser"]["memory"]["limit"] and values["prePuller"]["hook"]["enabled"]
