"""The platform's deployment plan: what `RecipeReleases` registers, computed without Pulumi.

Per enabled component of a resolved recipe, in deployment order: its chart source and
hydrated values (with the stack's overrides), its namespace, pre-manifests and manifests,
the components it waits for; then the Trainer runtime patches and the deployment checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.platform.chart_values.paths import Segment, render
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.checks.plan import CheckPlan, plan_checks
from components.platform.releases.component_plan import ComponentPlan
from components.platform.releases.gpu_sharing import gpu_sharing
from components.platform.releases.manifests import load_manifests
from components.platform.releases.overrides import ENABLED, PlatformError, PlatformOverrides
from components.platform.releases.runtime_patch import (
    TRAINER_COMPONENT,
    runtime_patches,
    values_digest,
)
from recipes.catalogs.catalog import Catalog
from recipes.model.overlays import ComponentRef
from recipes.model.result import RecipeResult
from recipes.resolution.merge import deep_merge
from recipes.resolution.values import component_values

PSA_ENFORCE = "pod-security.kubernetes.io/enforce"
PRIVILEGED_COMPONENTS = frozenset({"gpu-operator"})
"""Components whose namespace must admit privileged pods (host paths, privileged DaemonSets)."""
BUILTIN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


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


@dataclass(frozen=True)
class DanglingName:
    """A values path of an enabled component that names an object only a disabled
    component's manifests create (`dangling_names`)."""

    component: str
    path: str
    """The dotted values path, spelled as `--set` takes it (`\\.` for a dot in a key)."""
    disabled: str
    kind: str
    name: str

    def message(self) -> str:
        setting = f"{self.component}:{self.path}"
        return (
            f"{self.disabled} is disabled, but {self.component}'s values still name its "
            f"{self.kind} {self.name} at {self.path}, so {self.component} would wait for an "
            f"object nothing creates; also set `{setting}=` (empty: it names nothing), or "
            f"`{setting}={self.name}` yourself if something else creates it"
        )


def dangling_names(
    catalog: Catalog, recipe: RecipeResult, overrides: PlatformOverrides | None = None
) -> list[DanglingName]:
    """Values that name what a disabled component would have made: refused, not guessed.

    A component's values may name an object another component ships, which it lists in
    `dependencyRefs` (gpu-operator's `devicePlugin.config.name`: the ConfigMap of
    `gpu-time-slicing`). Disabling the other one (`COMP:enabled=false`, or the recipe's
    `overrides.enabled: false`) counts that dependency as satisfied (AICR's rule: provided
    some other way) and deletes the object, while the values keep naming it: the chart's
    workload then waits for an object nothing creates. AICR's format has no values that
    follow another component's switch (its own catalog ships such an object with the
    component that names it, as a `preManifestFiles` Helm template gated on that value,
    e.g. gpu-operator's kernel-module-params.yaml; gpu-ci takes no templated manifests),
    and dropping a value by guesswork would also deploy something `aicr bundle` with the
    same `--set` would not. So the plan is refused, naming the path to clear.

    Found: every string in the component's values (recipe and stack overrides merged)
    equal to the `metadata.name` of a non-Namespace object in the manifests or
    pre-manifests of a disabled component it depends on. A path the stack overrides set
    themselves is the user's word (they create the object some other way) and is kept.
    Manifests that cannot be read here (Helm templates of layered catalogs) name nothing.
    """
    overrides = overrides or PlatformOverrides()
    enabled = {c.name for c in recipe.componentRefs if overrides.is_enabled(c.name)}
    found: list[DanglingName] = []
    for ref in recipe.componentRefs:
        if ref.name not in enabled or not ref.chart:
            continue
        given = overrides.values_for(ref.name)
        chosen = {path for path, _ in _strings(given)}
        values: dict[str, Any] | None = None
        for dep in ref.dependencyRefs:
            dep_ref = recipe.ref(dep)
            if dep in enabled or dep_ref is None:
                continue
            try:
                objects = [
                    *load_manifests(catalog, dep_ref, dep_ref.preManifestFiles),
                    *load_manifests(catalog, dep_ref),
                ]
            except PlatformError:
                continue
            named = {o.name: o for o in objects if o.kind != "Namespace"}
            if not named:
                continue
            if values is None:
                values = _values(catalog, recipe, ref, given)
            for path, text in _strings(values):
                if text in named and path not in chosen:
                    found.append(DanglingName(ref.name, path, dep, named[text].kind, text))
    return found


def _strings(values: Any, path: tuple[Segment, ...] = ()) -> list[tuple[str, str]]:
    """(values path as `set` takes it, string) for every string leaf under maps and lists."""
    if isinstance(values, str):
        return [(render(path), values)]
    items: list[tuple[Segment, Any]] = []
    if isinstance(values, dict):
        items = [(str(k), v) for k, v in values.items()]
    elif isinstance(values, list):
        items = list(enumerate(values))
    return [leaf for key, value in items for leaf in _strings(value, (*path, key))]


def plan_platform(
    catalog: Catalog,
    recipe: RecipeResult,
    overrides: PlatformOverrides | None = None,
    *,
    runtime_class_patch: bool = False,
    gpus: GpuExpectation | None = None,
) -> PlatformPlan:
    """The deployable plan for `recipe` with stack-config `overrides` applied (`gpus`: what
    the cluster's layout gives it, for the GPU checks)."""
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
    if dangling := dangling_names(catalog, recipe, overrides):
        raise PlatformError(f"platform: {dangling[0].message()}")
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
    revisions = {  # what each component's checks re-run on (checks/plan.py)
        p.name: values_digest(
            {
                "release": [p.chart, p.repository, p.version, p.values],
                "objects": [m.obj for m in (*p.pre_manifests, *p.manifests)],
                "patches": patches if p.name == TRAINER_COMPONENT else [],
            }
        )
        for p in plans
    }
    return PlatformPlan(
        components=tuple(plans),
        disabled=tuple(disabled),
        namespaces=namespaces,
        runtime_patches=tuple(patches),
        checks=plan_checks(recipe, deployed, catalog, revisions, gpus=(gpus, gpu_sharing(plans))),
        revision=revision,
        trainer_version=trainer.version if trainer else None,
        by_name=by_name,
    )
