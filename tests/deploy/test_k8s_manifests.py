"""Every Kubernetes manifest under deploy/k8s/ validates offline, and the parts fit together.

Kubernetes' own kinds are checked strictly (unknown fields rejected) against the Kubernetes JSON schemas of the
`kubernetes-validate` package. KEDA's ScaledObject is not in those schemas: it is checked against KEDA's CRD as the
`cloudcoil-models-keda` package models it (strict types; a field the CRD does not know fails the round trip), and its
redis trigger's metadata, a free-form map in the CRD, against the parameters KEDA documents for the redis scaler.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from testkit import ROOT

K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30"  # the oldest release with securityContext.appArmorProfile
# KEDA's redis (lists) scaler parameters (keda.sh/docs/2.16/scalers/redis-lists/).
KEDA_REDIS_REQUIRED = {"listName", "listLength"}
KEDA_REDIS_KNOWN = KEDA_REDIS_REQUIRED | {
    "address", "addressFromEnv", "host", "hostFromEnv", "port", "portFromEnv", "usernameFromEnv", "passwordFromEnv",
    "activationListLength", "enableTLS", "unsafeSsl", "databaseIndex"}


def manifests() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            found += [(path.name, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return found


def by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for _, doc in manifests() if doc["kind"] == kind}


def check_keda(doc: dict[str, Any]) -> None:
    """Raise ValueError naming the problem when a ScaledObject does not fit KEDA's CRD and redis scaler."""
    from cloudcoil.models.keda.v1alpha1 import ScaledObject

    model = ScaledObject.model_validate(doc, strict=True)
    if model.model_dump(by_alias=True, exclude_unset=True, mode="json") != doc:
        raise ValueError(f"{doc['metadata']['name']} has fields KEDA's ScaledObject does not know")
    for trigger in doc["spec"]["triggers"]:
        keys = set(trigger["metadata"])
        if trigger["type"] == "redis" and (keys - KEDA_REDIS_KNOWN or KEDA_REDIS_REQUIRED - keys):
            raise ValueError(f"redis trigger metadata {sorted(keys)}: unknown {sorted(keys - KEDA_REDIS_KNOWN)}, "
                             f"missing {sorted(KEDA_REDIS_REQUIRED - keys)}")


def check(doc: dict[str, Any]) -> None:
    if doc["apiVersion"].startswith("keda.sh/"):
        check_keda(doc)
    else:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize(("filename", "doc"), manifests(), ids=lambda v: v if isinstance(v, str) else v["kind"])
def test_it_validates_every_manifest(filename: str, doc: dict[str, Any]) -> None:
    check(doc)


@pytest.mark.parametrize(("kind", "path", "bad"), [
    ("Deployment", ["spec", "template", "spec", "containers", 0], {"livenessprobe": {}}),  # a typo'd field
    ("Deployment", ["spec"], {"replicas": "two"}),
    ("ScaledObject", ["spec"], {"maxReplicas": 20}),
    ("ScaledObject", ["spec"], {"maxReplicaCount": "20"}),
    ("ScaledObject", ["spec", "triggers", 0, "metadata"], {"listname": "ludus"}),
])
def test_it_rejects_a_broken_manifest(kind: str, path: list[Any], bad: dict[str, Any]) -> None:
    doc = copy.deepcopy(next(iter(by_kind(kind).values())))
    target = doc
    for step in path:
        target = target[step]
    target.update(bad)
    with pytest.raises((kubernetes_validate.ValidationError, ValueError)):
        check(doc)


def test_the_kustomization_applies_every_manifest_file() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert sorted(kustomization["resources"]) == sorted(files)


def test_beat_runs_once_and_is_replaced_not_rolled() -> None:
    beat = by_kind("Deployment")["ludus-beat"]
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}


def test_keda_scales_the_workers_on_the_queues_they_consume() -> None:
    [scaled] = by_kind("ScaledObject").values()
    config = by_kind("ConfigMap")["ludus-config"]["data"]
    assert scaled["spec"]["scaleTargetRef"]["name"] in by_kind("Deployment")
    assert "worker" in scaled["spec"]["scaleTargetRef"]["name"]
    queue = config["LUDUS_QUEUE"]
    assert {t["metadata"]["listName"] for t in scaled["spec"]["triggers"]} == {queue, f"{queue}.validation"}
    assert {t["metadata"]["addressFromEnv"] for t in scaled["spec"]["triggers"]} <= set(config)


def test_every_long_running_container_has_a_liveness_probe_and_the_web_a_readiness_probe() -> None:
    for name, deployment in by_kind("Deployment").items():
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            assert "livenessProbe" in container, (name, container["name"])
    [web] = by_kind("Deployment")["ludus-web"]["spec"]["template"]["spec"]["containers"]
    assert web["readinessProbe"]["httpGet"]["path"] == "/healthz"


def test_the_config_names_only_variables_ludus_documents() -> None:
    readme = (ROOT / "README.md").read_text()
    names = set(by_kind("ConfigMap")["ludus-config"]["data"]) | set(by_kind("Secret")["ludus-secrets"]["stringData"])
    undocumented = {name for name in names if f"`{name}`" not in readme} - {"KEDA_REDIS_ADDRESS"}
    assert not undocumented


def test_the_worker_serves_metrics_from_a_directory_of_its_own() -> None:
    spec = by_kind("Deployment")["ludus-worker"]["spec"]["template"]["spec"]
    [worker] = spec["containers"]
    env = {item["name"]: item["value"] for item in worker["env"]}
    assert env["PROMETHEUS_MULTIPROC_DIR"] in {mount["mountPath"] for mount in worker["volumeMounts"]}
    assert int(env["LUDUS_METRICS_PORT"]) in {port["containerPort"] for port in worker["ports"]}


def test_the_workers_do_not_pin_matches_on_nodes_whose_cpus_they_share() -> None:
    """Pinned, a match could not move off a CPU the node's other workloads keep busy (docs/operations.md)."""
    [worker] = by_kind("Deployment")["ludus-worker"]["spec"]["template"]["spec"]["containers"]
    assert {item["name"]: item["value"] for item in worker["env"]}["LUDUS_PIN_MATCHES"] == "0"


def test_the_worker_pods_of_a_node_lease_seat_uids_in_one_lock_dir() -> None:
    """Each pod has its own /run: with lock dirs of their own, two pods of a node could give their seats one uid."""
    spec = by_kind("Deployment")["ludus-worker"]["spec"]["template"]["spec"]
    [worker] = spec["containers"]
    [mount] = [m for m in worker["volumeMounts"] if m["mountPath"] == "/run/ludus-sandbox"]
    [volume] = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    assert volume["hostPath"] == {"path": "/run/ludus-sandbox", "type": "DirectoryOrCreate"}


def test_it_finds_the_manifests() -> None:
    kinds = sorted(doc["kind"] for _, doc in manifests())
    assert kinds.count("Deployment") == 3 and "ScaledObject" in kinds and "Job" in kinds
    assert Path(K8S / "kustomization.yaml").exists()
