"""The providers' replacement rules, as `stacks/offline/lifecycle/replacements/` states them.

Which input changes a provider cannot make in place (Terraform's `ForceNew` for OCI and
random, the Kubernetes provider's immutable fields, Helm's and pulumi-command's own, and a
Kubernetes provider resource's own `DiffConfig`), whether its
`Diff` asks to delete the old resource first (always, never, or for pulumi-kubernetes only
an object that is named and keeps its name and namespace), and whether its outputs are
unknown after an update, per Pulumi type token; `stacks.offline.lifecycle.fate` applies them,
with the engine's rule that a replacement caused by the provider never reaches the
provider's `Diff`. A type no rule covers is not "no rules, so updated": `known` says so, and
the diff cannot predict it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

RULES = Path(__file__).resolve().parent / "replacements"


@dataclass(frozen=True)
class TypeRules:
    """What a provider does with one resource type's input changes."""

    force_new: tuple[str, ...] = ()
    delete_before_replace: bool = False
    """The provider's `Diff` asks to delete first whenever it replaces."""
    outputs_unknown_on_update: bool = False
    source: str = ""
    delete_before_replace_if_kept_name: bool = False
    """pulumi-kubernetes: its `Diff` asks to delete first only for an object that is not
    auto-named and keeps its name and namespace (`delete_first.keeps_name`)."""
    replace_when_unknown: tuple[str, ...] = ()
    """Inputs an unknown value of which replaces (a Kubernetes provider's kubeconfig)."""
    may_replace_when_changed: tuple[str, ...] = ()
    """Inputs a known change of which replaces only on a condition the plan cannot see
    (the kubeconfig's active cluster): the diff shows `may-replace`, never `replace`."""
    identifier: str = ""
    """An input that, set and unchanged, cancels every replacement (`clusterIdentifier`)."""


@dataclass(frozen=True)
class Rules:
    """The providers' replacement rules, per Pulumi type token (`for_type`)."""

    exact: dict[str, TypeRules]
    kubernetes_every_kind: tuple[str, ...]
    kubernetes_named_dbr: bool
    """A Kubernetes object is deleted first only when named and kept (not: always)."""
    config_map_unless_mutable: tuple[str, ...]
    secret_unless_mutable: tuple[str, ...]
    kubeconfig_unknown_replaces: bool
    provider_change_skips_diff: bool = True
    """The engine replaces a resource whose provider changed without calling the provider's
    `Diff`, so only the resource's own `deleteBeforeReplace` decides (rules.json `engine`)."""
    ignore_changes_kept_on_replace: bool = True
    """A replacement is created with the old value of each ignoreChanges path (rules.json
    `engine.ignoreChangesKeptOnReplace`)."""
    region_change_replaces_oci_provider: bool = False

    def known(self, type_: str) -> bool:
        """Whether some rule covers `type_`; a change of a type no rule covers cannot be
        predicted (rules.json `unknownTypes`)."""
        return type_ in self.exact or type_.startswith("kubernetes:")

    def for_type(self, type_: str, provider_inputs: Mapping[str, Any] | None = None) -> TypeRules:
        provider_inputs = provider_inputs or {}
        if type_ in self.exact:
            rules = self.exact[type_]
        elif type_.startswith("kubernetes:"):
            rules = TypeRules(
                self.kubernetes_every_kind,
                source="pulumi-kubernetes diff.go: every kind",
                delete_before_replace_if_kept_name=self.kubernetes_named_dbr,
            )
        else:
            return TypeRules()
        if type_ == "kubernetes:core/v1:ConfigMap" and not provider_inputs.get(
            "enableConfigMapMutable"
        ):
            rules = _extend(rules, self.config_map_unless_mutable)
        if type_ == "kubernetes:core/v1:Secret" and not provider_inputs.get("enableSecretMutable"):
            rules = _extend(rules, self.secret_unless_mutable)
        return rules


def _extend(rules: TypeRules, paths: Iterable[str]) -> TypeRules:
    return replace(rules, force_new=(*rules.force_new, *paths))


def camel(path: str) -> str:
    """A Terraform attribute path in Pulumi's names: `create_vnic_details.subnet_id` ->
    `createVnicDetails.subnetId`. Each `_x` becomes `X`, wherever it is, so the path need
    not be split at its dots first."""
    head, *rest = path.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _flag(value: Any) -> bool:
    return bool(value["value"] if isinstance(value, dict) else value)


def _read(folder: Path, name: str) -> Any:
    return json.loads((folder / name).read_text(encoding="utf-8"))


@cache
def load_rules() -> Rules:
    """The rules as `stacks/offline/lifecycle/replacements/` states them (see its rules.json), read
    once per process."""
    return rules_from(RULES)


def rules_from(folder: Path) -> Rules:
    """The rules a folder laid out as `stacks/offline/lifecycle/replacements/` states (`load_rules`
    reads that one; a separate function so that what it reads is tested uncached)."""
    how = _read(folder, "rules.json")
    oci = _read(folder, "oci-terraform-forcenew.json")
    k8s = _read(folder, "kubernetes-forcenew.json")
    exact: dict[str, TypeRules] = {}
    oci_how = how["oci"]
    for tf_type, token in oci_how["types"].items():
        paths = [camel(p) for p in oci[tf_type]["forceNew"]]
        for rule in oci_how["customizeDiff"].get(tf_type, []):
            paths += rule["paths"]
        exact[token] = TypeRules(
            tuple(paths),
            _flag(oci_how["deleteBeforeReplace"]),
            _flag(oci_how["outputsUnknownOnUpdate"]),
            f"terraform-provider-oci {tf_type}",
        )
    k8s_how = how["kubernetes"]
    named = _flag(k8s_how["deleteBeforeReplaceWhenNamedAndKept"])
    every = tuple(k8s["everyKind"])
    for group_version, kinds in k8s["kinds"].items():
        for kind, paths in kinds.items():
            exact[f"kubernetes:{group_version}:{kind}"] = TypeRules(
                (*every, *paths),
                source=f"pulumi-kubernetes diff.go {kind}",
                delete_before_replace_if_kept_name=named,
            )
    helm = k8s["helmReleaseV3"]
    exact["kubernetes:helm.sh/v3:Release"] = TypeRules(
        tuple(helm["forceNew"]),
        bool(helm["deleteBeforeReplace"]),
        source="pulumi-kubernetes helm_release.go",
    )
    cmd = how["command"]
    for token in cmd["types"]:
        exact[token] = TypeRules(
            tuple(cmd["forceNew"]),
            _flag(cmd["deleteBeforeReplace"]),
            _flag(cmd["outputsUnknownOnUpdate"]),
            "pulumi-command",
        )
    exact.update(_random(how["random"], _read(folder, "random-terraform-forcenew.json")))
    provider = how["kubernetesProvider"]
    exact[provider["type"]] = TypeRules(
        tuple(provider["forceNew"]["value"]),
        source="pulumi-kubernetes provider.go DiffConfig",
        replace_when_unknown=tuple(provider["replaceWhenUnknown"]["value"]),
        may_replace_when_changed=tuple(provider["mayReplaceWhenChanged"]["value"]),
        identifier=str(provider["clusterIdentifier"]["value"]),
    )
    return Rules(
        exact=exact,
        kubernetes_every_kind=every,
        kubernetes_named_dbr=named,
        config_map_unless_mutable=tuple(k8s["configMapUnlessMutable"]),
        secret_unless_mutable=tuple(k8s["secretUnlessMutable"]),
        kubeconfig_unknown_replaces=_flag(k8s_how["kubeconfigUnknownReplacesProvider"]),
        provider_change_skips_diff=_flag(how["engine"]["providerChangeSkipsDiff"]),
        ignore_changes_kept_on_replace=_flag(how["engine"]["ignoreChangesKeptOnReplace"]),
        region_change_replaces_oci_provider=_flag(
            how["ociProvider"]["regionChangeReplacesProvider"]
        ),
    )


def _random(how: Mapping[str, Any], facts: Mapping[str, Any]) -> dict[str, TypeRules]:
    """terraform-provider-random's types: every input replaces (RequiresReplace)."""
    return {
        token: TypeRules(
            tuple(camel(p) for p in facts[tf_type]["forceNew"]),
            _flag(how["deleteBeforeReplace"]),
            _flag(how["outputsUnknownOnUpdate"]),
            f"terraform-provider-random {tf_type}",
        )
        for tf_type, token in how["types"].items()
    }
