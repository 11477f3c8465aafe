"""RecipeReleases: the platform layer, a resolved recipe deployed onto a cluster.

For each enabled component, in the recipe's deployment order:
- its namespace (one `Namespace` per distinct namespace; the GPU operator's is labelled
  `pod-security.kubernetes.io/enforce=privileged`, its DaemonSets mount host paths);
- one `helm.v3.Release` named after the component, with the hydrated values
  (`recipes.component_values`) plus stack-config overrides; `https://` sources become the
  release's repository, `oci://` sources are prefixed to the chart name;
- its `preManifestFiles` as one resource per object, applied before its release (AICR's
  pre-manifests: objects the chart needs, e.g. a labelled Namespace), and its
  `manifestFiles` the same way, applied after its release (a component with manifests and
  no chart, like `gpu-time-slicing`, is manifest-only);
- `depends_on` edges following `dependencyRefs`: a component waits for its dependencies'
  releases and manifests.

Then, when the host configuration needs it (`runtime_class_patch`), one SSA patch per
ClusterTrainingRuntime the Trainer chart installs (`releases/runtime_patch.py`), after the Trainer
release (whose post-install hook creates the runtimes), and finally the deployment checks
(`checks/deployment_checks.py`) after everything else.

Stack config can disable components and override values (`releases/overrides.py`). A component the
overrides disable is left out like one the recipe disables: both are listed in the plan's
`disabled` (and the component's `disabled` output), nothing of them is deployed, and
dependencies on them count as satisfied (AICR's rule for `overrides.enabled: false`).
What a disabled component's manifests would have made must then not be named by the
values of a component that depends on it (gpu-operator's `devicePlugin.config.name`, the
ConfigMap of `gpu-time-slicing`): such a plan is refused, naming the values path to clear
or set (`release_plan.dangling_names`; the stack config check reports it at the switch).

Each deployed component's health check (`healthCheckAsserts`, the registry's Chainsaw
assertions AICR inlines) runs as one of the deployment checks, a Chainsaw Job
(`checks/plan.py`), and is exported in the component's `healthChecks` output, by component.

`plan_platform` (`release_plan.py`) computes all of this without Pulumi, so it can be
inspected and tested; the component only turns the plan into resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.base import MANAGED_LABELS, ComponentArgs, child, upstream
from components.platform.checks.deployment_checks import DeploymentChecks, DeploymentChecksArgs
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.release_plan import PSA_ENFORCE, PlatformPlan, plan_platform
from components.platform.releases.component_plan import ComponentPlan
from components.platform.releases.manifests import ManifestObject
from components.platform.releases.overrides import PlatformOverrides
from components.platform.releases.runtime_patch import (
    TRAINER_COMPONENT,
)
from recipes.catalogs.catalog import Catalog
from recipes.model.result import RecipeResult


class RecipeReleasesArgs(ComponentArgs):
    """Inputs of the platform layer."""

    catalog: Catalog
    """The catalog the recipe was resolved from (values files and manifests)."""
    recipe: RecipeResult
    overrides: PlatformOverrides = Field(default_factory=PlatformOverrides)
    runtime_class_patch: bool = False
    """Patch every Trainer runtime with runtimeClassName nvidia and /dev/shm (host decides)."""
    deployment_checks: bool = True
    """Run the recipe's deployment checks (GPU smoke Job, expected resources) after deploy."""
    gpus: GpuExpectation | None = None
    """What the cluster's layout gives it: adds the GPU checks (`checks/gpu_count.py`)."""
    release_timeout_s: int = Field(default=900, ge=60, le=3600)


class RecipeReleases(pulumi.ComponentResource):
    """A recipe's components as Helm releases and manifests, patched and checked, on the
    cluster of `opts.provider` (every child inherits it); what `opts.depends_on` names, the
    first children (namespaces, components without dependencies) wait for."""

    plan: PlatformPlan
    namespaces: dict[str, k8s.core.v1.Namespace]
    releases: dict[str, k8s.helm.v3.Release]
    manifests: dict[str, list[pulumi.CustomResource]]
    runtime_patches: dict[str, k8s.apiextensions.CustomResourcePatch]
    checks: DeploymentChecks | None
    release_status: pulumi.Output[dict[str, dict[str, Any]]]
    check_results: pulumi.Output[dict[str, dict[str, Any]]]

    def __init__(
        self, name: str, args: RecipeReleasesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:platform:RecipeReleases", name, None, opts)
        self.plan = plan = plan_platform(
            args.catalog,
            args.recipe,
            args.overrides,
            runtime_class_patch=args.runtime_class_patch,
            gpus=args.gpus,
        )
        start = upstream(opts)
        self.namespaces = {
            ns: k8s.core.v1.Namespace(
                f"{name}-ns-{ns}",
                metadata={
                    "name": ns,
                    "labels": {
                        **MANAGED_LABELS,
                        **({PSA_ENFORCE: "privileged"} if privileged else {}),
                    },
                },
                opts=child(self, depends_on=start),
            )
            for ns, privileged in plan.namespaces.items()
        }
        self.releases = {}
        self.manifests = {}
        done: dict[str, list[pulumi.Resource]] = {}
        for comp in plan.components:
            after: list[pulumi.Resource] = [r for d in comp.depends_on for r in done[d]]
            after = after or [*start]  # a root waits for what the component waits for
            if comp.namespace in self.namespaces:
                after.insert(0, self.namespaces[comp.namespace])
            created: list[pulumi.Resource] = [
                self._manifest(name, m, after, "pre-") for m in comp.pre_manifests
            ]
            after = [*after, *created]
            if comp.chart is not None:
                release = self._release(name, comp, after, args.release_timeout_s)
                self.releases[comp.name] = release
                created.append(release)
                after = [release]
            objects = [self._manifest(name, m, after) for m in comp.manifests]
            self.manifests[comp.name] = objects
            done[comp.name] = [*created, *objects]
        self.runtime_patches = self._patches(name)
        everything = [r for rs in done.values() for r in rs] + list(self.runtime_patches.values())
        self.checks = None
        self.check_results = pulumi.Output.from_input({})
        if args.deployment_checks:
            self.checks = DeploymentChecks(
                f"{name}-checks",
                DeploymentChecksArgs(plan=plan.checks),
                opts=child(self, depends_on=everything),
            )
            self.check_results = self.checks.results
        self.release_status = _statuses(plan, self.releases)
        health = {c.name: c.health_check_asserts for c in plan.components if c.health_check_asserts}
        self.register_outputs(
            {
                "deploymentOrder": [c.name for c in plan.components],
                "disabled": list(plan.disabled),
                "namespaces": list(plan.namespaces),
                "releases": self.release_status,
                "runtimePatches": list(self.runtime_patches),
                "checks": self.check_results,
                "checksNotRun": plan.checks.not_run,
                **({"healthChecks": health} if health else {}),
            }
        )

    def _release(
        self,
        name: str,
        comp: ComponentPlan,
        after: list[pulumi.Resource],
        timeout_s: int,
    ) -> k8s.helm.v3.Release:
        repository = (
            k8s.helm.v3.RepositoryOptsArgs(repo=comp.repository) if comp.repository else None
        )
        return k8s.helm.v3.Release(
            f"{name}-{comp.name}",
            name=comp.name,
            chart=comp.chart,
            version=comp.version,
            repository_opts=repository,
            namespace=comp.namespace,
            values=comp.values,
            timeout=timeout_s,
            wait_for_jobs=True,
            max_history=10,
            opts=child(self, depends_on=after),
        )

    def _manifest(
        self,
        name: str,
        obj: ManifestObject,
        after: list[pulumi.Resource],
        phase: str = "",
    ) -> pulumi.CustomResource:
        ident = f"{phase}{obj.kind.lower()}-{obj.name}"
        return pulumi.CustomResource(
            obj.type_token,
            f"{name}-{obj.component}-{ident}",
            dict(obj.obj),
            child(self, depends_on=after),
        )

    def _patches(self, name: str) -> dict[str, k8s.apiextensions.CustomResourcePatch]:
        trainer = self.releases.get(TRAINER_COMPONENT)
        patches: dict[str, k8s.apiextensions.CustomResourcePatch] = {}
        if trainer is None:
            return patches
        trainer_after = [trainer, *self.manifests.get(TRAINER_COMPONENT, [])]
        for patch in self.plan.runtime_patches:
            runtime = patch["metadata"]["name"]
            patches[runtime] = k8s.apiextensions.CustomResourcePatch(
                f"{name}-runtime-{runtime}",
                api_version=patch["apiVersion"],
                kind=patch["kind"],
                metadata=patch["metadata"],
                spec=patch["spec"],
                opts=child(self, depends_on=trainer_after),
            )
        return patches


def _statuses(
    plan: PlatformPlan, releases: Mapping[str, k8s.helm.v3.Release]
) -> pulumi.Output[dict[str, dict[str, Any]]]:
    names = list(releases)

    def shape(statuses: list[Any]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for comp_name, status in zip(names, statuses, strict=True):
            comp = plan.by_name[comp_name]
            out[comp_name] = {
                "name": getattr(status, "name", None) or comp_name,
                "namespace": getattr(status, "namespace", None) or comp.namespace,
                "chart": comp.chart,
                "version": getattr(status, "version", None) or comp.version,
                "status": getattr(status, "status", None),
                "revision": getattr(status, "revision", None),
            }
        return out

    return pulumi.Output.all(*[releases[n].status for n in names]).apply(shape)
