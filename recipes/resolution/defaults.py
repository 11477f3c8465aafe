"""Registry defaults and health-check hydration of resolved components.

`with_defaults` is AICR's `ApplyRegistryDefaults`: an empty `type` becomes the registry's
(Kustomize when it gives a default source, else Helm); for Helm, empty source, version,
namespace and chart come from `helm.default*` (the chart without its repo prefix); for
Kustomize, empty source, tag and path from `kustomize.default*`; empty `manifestFiles` from
the registry's `manifestFiles` (aicr.run registries).

`with_health_check` is AICR's `hydrateHealthCheckAsserts`: the content of the registry's
`healthCheck.assertFile` becomes `healthCheckAsserts`, unless the component sets
`healthCheckSkip` or already carries asserts inline. Disabled components are hydrated too,
so the recipe reads the same whatever is enabled.
"""

from __future__ import annotations

from typing import Any

from recipes.catalogs.catalog import Catalog
from recipes.model.overlays import ComponentRef


def with_defaults(catalog: Catalog, ref: ComponentRef) -> ComponentRef:
    """`ref` with empty fields filled from its registry entry."""
    config = catalog.registry.get(ref.name)
    if config is None:
        return ref
    kind = ref.type or config.default_type()
    update: dict[str, Any] = {"type": kind}
    pairs: tuple[tuple[str, str], ...] = ()
    if kind == "Helm":
        helm = config.helm
        chart = helm.defaultChart.rsplit("/", 1)[-1]
        pairs = (
            ("source", helm.defaultRepository),
            ("version", helm.defaultVersion),
            ("namespace", helm.defaultNamespace),
            ("chart", chart),
        )
    elif kind == "Kustomize":
        kust = config.kustomize
        pairs = (
            ("source", kust.defaultSource),
            ("tag", kust.defaultTag),
            ("path", kust.defaultPath),
        )
    for name, default in pairs:
        if not getattr(ref, name) and default:
            update[name] = default
    manifests = getattr(config, "manifestFiles", [])
    if not ref.manifestFiles and manifests:
        update["manifestFiles"] = list(manifests)
    return ref.model_copy(update=update)


def with_health_check(catalog: Catalog, ref: ComponentRef) -> ComponentRef:
    """`ref` with its registry health check inlined as `healthCheckAsserts`."""
    if ref.healthCheckSkip or ref.healthCheckAsserts:
        return ref
    config = catalog.registry.get(ref.name)
    if config is None or not config.healthCheck.assertFile:
        return ref
    text = catalog.read_text(config.healthCheck.assertFile)
    return ref.model_copy(update={"healthCheckAsserts": text})
