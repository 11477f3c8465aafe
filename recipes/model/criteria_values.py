"""The criteria values each AICR release knows, its aliases, and how a query value is checked.

AICR parses each criterion against a fixed list of values it ships (`pkg/recipe/criteria.go`
`Parse*`), after trimming and lower-casing. Since PR #999 (issue #998, May 2026) it also
accepts the values the loaded catalog's overlays use (its criteria registry, seeded from
every overlay's `spec.criteria`), so a value AICR knows but no overlay names (`--os rhel`)
is a valid query that resolves to the generic chain. AICR v0.11.1 had no such registry: a
value outside its own lists was refused, whatever the catalog held. Which rules apply is
the catalog's format's (`recipes.model.semantics`).

Aliases resolve before matching: `self-managed`, `self` and `vanilla` mean service `any`
(a cluster on no managed service), `al2` / `al2023` mean os `amazonlinux`, and, since the
`ocp` service came, `openshift` means `ocp`. The CLI's `--gpu` is AICR's flag alias for
`--accelerator`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.errors import did_you_mean

ANY = "any"

AICR_VALUES: dict[str, tuple[str, ...]] = {
    "service": ("aks", "bcm", "eks", "gke", "kind", "lke", "ocp", "oke"),
    "accelerator": ("a100", "b200", "gb200", "gb300", "h100", "h200", "l40", "rtx-pro-6000"),
    "os": ("amazonlinux", "cos", "ol", "rhel", "sles", "talos", "ubuntu"),
    "intent": ("inference", "training"),
    "platform": ("dynamo", "kubeflow", "nim", "runai", "slurm"),
}
"""The values AICR's `Parse*` functions accept without any catalog (`Get*Types`, July 2026)."""

AICR_V0_11_1_VALUES: dict[str, tuple[str, ...]] = {
    # kind: the v0.11.1 catalog's own kind overlays; lke, bcm, ocp came later (lke with
    # the RTX PRO 6000 overlays: `pkg/recipe` godoc of v0.12.0 is the first to list it).
    "service": ("aks", "eks", "gke", "kind", "oke"),
    # AICR issue #436 (2026-03-19, two days before the tag): "AICR currently recognizes
    # a100, gb200, h100, and l40"; b200, rtx-pro-6000 and h200 (PR #1091) came later.
    "accelerator": ("a100", "gb200", "h100", "l40"),
    # talos came with `pkg/recipe/oskind`, ol and sles later still; v0.12.0's godoc lists
    # "ubuntu, rhel, cos, amazonlinux".
    "os": ("amazonlinux", "cos", "rhel", "ubuntu"),
    "intent": ("inference", "training"),
    # nim came with PR #478 (2026-04-01), runai and slurm later.
    "platform": ("dynamo", "kubeflow"),
}
"""AICR v0.11.1's `Parse*` values (tag v0.11.1, bc05c6be): the only values it accepted."""

ALIASES: dict[str, dict[str, str]] = {
    "service": {"self-managed": ANY, "self": ANY, "vanilla": ANY, "openshift": "ocp"},
    "os": {"al2": "amazonlinux", "al2023": "amazonlinux"},
}
"""AICR's spellings that mean another value (`ParseService`, `ParseOS`)."""

ALIASES_V0_11_1: dict[str, dict[str, str]] = {
    "service": {"self-managed": ANY, "self": ANY, "vanilla": ANY},
    "os": {"al2": "amazonlinux", "al2023": "amazonlinux"},
}
"""v0.11.1's aliases: no `openshift`, as it had no `ocp` service."""


@dataclass(frozen=True)
class CriteriaRules:
    """How one AICR release parses a criteria value."""

    values: Mapping[str, tuple[str, ...]]
    """The release's own values, by criterion."""
    aliases: Mapping[str, Mapping[str, str]]
    catalog_values: bool
    """Whether values the catalog's overlays pin are accepted too (AICR PR #999)."""
    refusal: str = ""
    """What a refusal says of the release when the catalog's values do not count."""


TODAY = CriteriaRules(AICR_VALUES, ALIASES, catalog_values=True)
V0_11_1 = CriteriaRules(
    AICR_V0_11_1_VALUES,
    ALIASES_V0_11_1,
    catalog_values=False,
    refusal=(
        "this catalog's format (aicr.nvidia.com/v1alpha1) is AICR v0.11.1's, which accepts "
        "only its own values, not those the catalog's overlays add"
    ),
)


def canonical(field: str, value: str, rules: CriteriaRules = TODAY) -> str:
    """`value` trimmed, lower-cased and de-aliased; '' and `any` are `any`."""
    text = value.strip().lower()
    if not text:
        return ANY
    return rules.aliases.get(field, {}).get(text, text)


def known_values(
    field: str, catalog_values: Iterable[str], rules: CriteriaRules = TODAY
) -> list[str]:
    """The release's own values for `field` and, if it takes them, the catalog's, sorted."""
    extra = catalog_values if rules.catalog_values else ()
    return sorted({*rules.values.get(field, ()), *extra})


def unknown_value(
    field: str,
    value: str,
    vocabulary: Mapping[str, Iterable[str]],
    rules: CriteriaRules = TODAY,
) -> str | None:
    """Why `value` is not a valid `--field` (None when it is), listing the valid ones."""
    if value == ANY:
        return None
    valid = known_values(field, vocabulary.get(field, ()), rules)
    if value in valid:
        return None
    hint = did_you_mean(value, valid)
    tail = f" (did you mean {hint!r}?)" if hint else ""
    whose = (
        f"{rules.refusal}; valid values"
        if rules.refusal
        else "valid values (AICR's and the catalog's)"
    )
    return f"--{field} {value}: unknown value{tail}; {whose}: {', '.join(valid)} (or any)"
