"""The platform's deployment plan: what `RecipeReleases` registers, computed without Pulumi.

Per enabled component of a resolved recipe, in deployment order: its chart source and
hydrated values (with the stack's overrides), its namespace, pre-manifests and manifests,
the components it waits for; then the Trainer runtime patches and the deployment checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.platform.check_plan import CheckPlan, plan_checks
from components.platform.manifests import ManifestObject, load_manifests
from components.platform.overrides import ENABLED, PlatformError, PlatformOverrides
from components.platform.runtime_patch import TRAINER_COMPONENT, runtime_patches, values_digest
from recipes.catalog import Catalog
from recipes.merge import deep_merge
from recipes.model import ComponentRef
from recipes.result import RecipeResult
from recipes.values import component_values

PSA_ENFORCE = "pod-security.kubernetes.io/enforce"
PRIVILEGED_COMPONENTS = frozenset({"gpu-operator"})
"""Components whose namespace must admit privileged pods (host paths, privileged DaemonSets)."""
BUILTIN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


@dataclass(frozen=True)
class ComponentPlan:
    """One component as it will be deployed."""

    name: str
    namespace: str
    chart: str | None
    """The chart reference for the release; None for a manifest-only component."""
    repository: str | None
    """The https chart repository; None for oci:// charts and manifest-only components."""
    version: str
    values: dict[str, Any]
    manifests: tuple[ManifestObject, ...]
    depends_on: tuple[str, ...]
    """Enabled components (by name) this one waits for."""
    pre_manifests: tuple[ManifestObject, ...] = ()
    """Objects of its `preManifestFiles`, applied before its release."""
    health_check_asserts: str = ""
    """The component's Chainsaw health assertions (the recipe's `healthCheckAsserts`)."""


@dataclass(frozen=True)
class PlatformPlan:
    """Everything RecipeReleases will create, in order."""

    components: tuple[ComponentPlan, ...]
    disabled: tuple[str, ...]
    namespaces: dict[str, bool]
    """Namespace name -> whether it is labelled privileged."""
    runtime_patches: tuple[dict[str, Any], ...]
    checks: CheckPlan
    revision: str
    """A digest of charts, versions, values, manifests and patches (re-runs the checks)."""
    trainer_version: str | None = None
    by_name: dict[str, ComponentPlan] = field(default_factory=dict)


def chart_source(ref: ComponentRef) -> tuple[str | None, str | None]:
    """(chart, repository) for a Helm release of `ref`; (None, None) when it has no chart."""
    if ref.type == "Kustomize":
        raise PlatformError(
            f"{ref.name}: Kustomize components are not supported; use a Helm chart or manifestFiles"
        )
    if not ref.chart:
        if not ref.manifestFiles:
            raise PlatformError(f"{ref.name}: the recipe gives neither a chart nor manifestFiles")
        return None, None
    if not ref.version:
        raise PlatformError(
            f"{ref.name}: chart {ref.chart} has no version; pin one in the overlay or registry"
        )
    chart = ref.chart.rsplit("/", 1)[-1]
    source = ref.source.rstrip("/")
    if source.startswith("oci://"):
        return f"{source}/{chart}", None
    if source.startswith("https://"):
        return chart, source
    raise PlatformError(
        f"{ref.name}: chart source {ref.source or '(none)'!r} must be an https:// repository "
        "or an oci:// registry"
    )


def _values(
    catalog: Catalog, recipe: RecipeResult, ref: ComponentRef, extra: dict[str, Any]
) -> dict[str, Any]:
    values = component_values(catalog, recipe, ref.name)
    if isinstance(values.get(ENABLED), bool):
        del values[ENABLED]  # aicr's component switch, not a Helm value
    return deep_merge(values, extra)


def plan_platform(
    catalog: Catalog,
    recipe: RecipeResult,
    overrides: PlatformOverrides | None = None,
    *,
    runtime_class_patch: bool = False,
) -> PlatformPlan:
    """The deployable plan for `recipe` with stack-config `overrides` applied."""
    overrides = overrides or PlatformOverrides()
    overrides.check(recipe)
    refs = {c.name: c for c in recipe.componentRefs}
    order = [n for n in recipe.deploymentOrder if n in refs]
    enabled = [n for n in order if overrides.is_enabled(n)]
    disabled = [*recipe.metadata.disabledComponents, *(n for n in order if n not in enabled)]
    plans: list[ComponentPlan] = []
    for name in enabled:
        ref = refs[name]
        chart, repository = chart_source(ref)
        extra = overrides.values_for(name)
        if chart is None and extra:
            raise PlatformError(
                f"platform override {name!r}: the component is manifest-only (no chart), "
                "so it takes no Helm values"
            )
        plans.append(
            ComponentPlan(
                name=name,
                namespace=ref.namespace,
                chart=chart,
                repository=repository,
                version=ref.version if chart else "",
                values=_values(catalog, recipe, ref, extra) if chart else {},
                manifests=tuple(load_manifests(catalog, ref)),
                depends_on=tuple(d for d in ref.dependencyRefs if d in enabled),
                pre_manifests=tuple(load_manifests(catalog, ref, ref.preManifestFiles)),
                health_check_asserts=ref.healthCheckAsserts,
            )
        )
    namespaces: dict[str, bool] = {}
    own = {m.name for p in plans for m in p.pre_manifests if m.kind == "Namespace"}
    for plan in plans:  # a Namespace a pre-manifest brings (with its labels) is not made twice
        if plan.namespace and plan.namespace not in BUILTIN_NAMESPACES | own:
            privileged = plan.name in PRIVILEGED_COMPONENTS
            namespaces[plan.namespace] = namespaces.get(plan.namespace, False) or privileged
    by_name = {p.name: p for p in plans}
    trainer = by_name.get(TRAINER_COMPONENT)
    patches: list[dict[str, Any]] = []
    if runtime_class_patch and trainer is not None and trainer.chart is not None:
        patches = runtime_patches(trainer.version, trainer.values)
    deployed = [refs[p.name] for p in plans]
    revision = values_digest(
        {
            "components": [
                [p.name, p.chart, p.repository, p.version, p.values, [m.obj for m in p.manifests]]
                + ([[m.obj for m in p.pre_manifests]] if p.pre_manifests else [])
                for p in plans
            ],
            "patches": patches,
        }
    )
    return PlatformPlan(
        components=tuple(plans),
        disabled=tuple(disabled),
        namespaces=namespaces,
        runtime_patches=tuple(patches),
        checks=plan_checks(recipe, deployed),
        revision=revision,
        trainer_version=trainer.version if trainer else None,
        by_name=by_name,
    )
