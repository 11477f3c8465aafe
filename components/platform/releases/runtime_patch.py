"""The Kubeflow runtimeClassName hotfix as typed server-side-apply patches.

The Trainer GPU e2e (FIELD-NOTES §1 steps 8-9) rewrites every ClusterTrainingRuntime with
`kubectl get -o json | jq | kubectl apply`: `runtimeClassName: nvidia` on each replicated
job's pod template, and an in-memory `dshm` volume mounted at `/dev/shm` in every container
(NCCL needs more shared memory than a container's 64 MiB default). Here each runtime gets a
`ClusterTrainingRuntimePatch` (server-side apply, its own field manager) holding exactly
those fields, so the hotfix is a visible resource in the graph and nothing else of the
runtime is touched: `replicatedJobs`, `containers`, `volumes` and `volumeMounts` are all
list-maps in the CRD (keyed by name, name, name and mountPath), so the applied entries merge
into the chart's instead of replacing them.

Which runtimes exist, and the names of their replicated jobs and containers, depend on the
Trainer chart version and its values: the chart renders the enabled runtimes into a
ConfigMap and a post-install/post-upgrade hook Job applies them. `TRAINER_RUNTIMES` is that
table, per chart version. The patch carries the chart version and a digest of the chart's
values as annotations, so a chart upgrade or values change (which re-runs the hook) also
changes every patch, and Pulumi re-applies them after the release.

Source of the 2.3.0 table: kubeflow/trainer `charts/kubeflow-trainer/templates/runtimes/
_runtimes.tpl` @ ad7ae126 (the installer-hook chart whose values are the ones in
`shared/upstream/charts/kubeflow-trainer/values.yaml`, kubeflow/trainer @ 8c0f5059, chart
2.3.0), cross-checked by tests against the runtime objects in
`shared/upstream/kubeflow-trainer/runtimes/` (torch-, jax- and deepspeed-distributed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.platform.releases.overrides import PlatformError

API_VERSION = "trainer.kubeflow.org/v1alpha1"
KIND = "ClusterTrainingRuntime"
RUNTIME_CLASS = "nvidia"
SHM_VOLUME = "dshm"
SHM_PATH = "/dev/shm"
FIELD_MANAGER = "gpu-ci-runtime-patch"
CHART_VERSION_ANNOTATION = "gpu-ci/trainer-chart-version"
VALUES_DIGEST_ANNOTATION = "gpu-ci/trainer-values-digest"
TRAINER_COMPONENT = "kubeflow-trainer"


@dataclass(frozen=True)
class TrainerRuntime:
    """One built-in ClusterTrainingRuntime a Trainer chart version can install."""

    name: str
    enabled_when: tuple[str, ...]
    """Values paths that must all be true for the chart to render it."""
    default_set: bool
    """Also rendered when `runtimes.defaultEnabled` is true."""
    pods: tuple[tuple[str, tuple[str, ...]], ...]
    """(replicated job name, its container names) for every replicated job."""

    def is_installed(self, values: Mapping[str, Any]) -> bool:
        """Whether the chart renders this runtime for `values` (chart defaults: all off)."""
        if self.default_set and _get(values, "runtimes.defaultEnabled") is True:
            return True
        return all(_get(values, path) is True for path in self.enabled_when)


_NODE = (("node", ("node",)),)
_MPI = (("launcher", ("node",)), ("node", ("node",)))
_TORCHTUNE = (
    ("dataset-initializer", ("dataset-initializer",)),
    ("model-initializer", ("model-initializer",)),
    ("node", ("node",)),
)

TRAINER_RUNTIMES: Mapping[str, tuple[TrainerRuntime, ...]] = {
    "2.3.0": (
        TrainerRuntime("torch-distributed", ("runtimes.torchDistributed.enabled",), True, _NODE),
        TrainerRuntime(
            "deepspeed-distributed", ("runtimes.deepspeedDistributed.enabled",), True, _MPI
        ),
        TrainerRuntime("mlx-distributed", ("runtimes.mlxDistributed.enabled",), True, _MPI),
        TrainerRuntime("jax-distributed", ("runtimes.jaxDistributed.enabled",), True, _NODE),
        TrainerRuntime(
            "xgboost-distributed", ("runtimes.xgboostDistributed.enabled",), True, _NODE
        ),
        TrainerRuntime(
            "torchtune-llama3.2-1b",
            ("runtimes.torchtuneDistributed.llama3_2_1B.enabled",),
            True,
            _TORCHTUNE,
        ),
        TrainerRuntime(
            "torchtune-llama3.2-3b",
            ("runtimes.torchtuneDistributed.llama3_2_3B.enabled",),
            True,
            _TORCHTUNE,
        ),
        TrainerRuntime(
            "torchtune-qwen2.5-1.5b",
            ("runtimes.torchtuneDistributed.qwen2_5_1_5B.enabled",),
            True,
            _TORCHTUNE,
        ),
        TrainerRuntime(
            "torch-distributed-with-cache",
            ("dataCache.enabled", "dataCache.runtimes.torchDistributedWithCache.enabled"),
            False,
            (("dataset-initializer", ("dataset-initializer",)), ("node", ("node",))),
        ),
    ),
}


def _get(values: Mapping[str, Any], path: str) -> Any:
    node: Any = values
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _plain_version(version: str) -> str:
    return version[1:] if version.startswith("v") else version


def installed_runtimes(chart_version: str, values: Mapping[str, Any]) -> list[TrainerRuntime]:
    """The runtimes Trainer chart `chart_version` installs with `values`."""
    table = TRAINER_RUNTIMES.get(_plain_version(chart_version))
    if table is None:
        raise PlatformError(
            f"{TRAINER_COMPONENT} {chart_version}: no ClusterTrainingRuntime table for this "
            f"chart version (known: {', '.join(TRAINER_RUNTIMES)}); the runtimeClassName "
            "patch must know which runtimes the chart installs: add the version to "
            "TRAINER_RUNTIMES in components/platform/releases/runtime_patch.py"
        )
    return [r for r in table if r.is_installed(values)]


def values_digest(values: Mapping[str, Any]) -> str:
    """A short, stable digest of Helm values (key order does not matter)."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def runtime_patch(runtime: TrainerRuntime, chart_version: str, digest: str) -> dict[str, Any]:
    """The ClusterTrainingRuntime fields the hotfix owns, as one SSA patch object."""
    jobs = [
        {
            "name": job,
            "template": {
                "spec": {
                    "template": {
                        "spec": {
                            "runtimeClassName": RUNTIME_CLASS,
                            "volumes": [{"name": SHM_VOLUME, "emptyDir": {"medium": "Memory"}}],
                            "containers": [
                                {
                                    "name": container,
                                    "volumeMounts": [{"name": SHM_VOLUME, "mountPath": SHM_PATH}],
                                }
                                for container in containers
                            ],
                        }
                    }
                }
            },
        }
        for job, containers in runtime.pods
    ]
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": runtime.name,
            "annotations": {
                "pulumi.com/patchFieldManager": FIELD_MANAGER,
                # The chart's installer applies with --force-conflicts too; take these
                # fields back on every apply rather than fail on a conflict.
                "pulumi.com/patchForce": "true",
                CHART_VERSION_ANNOTATION: chart_version,
                VALUES_DIGEST_ANNOTATION: digest,
            },
        },
        "spec": {"template": {"spec": {"replicatedJobs": jobs}}},
    }


def runtime_patches(chart_version: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One patch per runtime the chart installs, in the table's order."""
    digest = values_digest(values)
    return [
        runtime_patch(r, chart_version, digest) for r in installed_runtimes(chart_version, values)
    ]
