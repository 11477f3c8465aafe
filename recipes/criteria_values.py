"""The criteria values AICR knows, its aliases, and how a query value is checked.

AICR parses each criterion against a fixed list of values it ships (`pkg/recipe/criteria.go`
`Parse*`) plus the values the loaded catalog's overlays use (its criteria registry, seeded
from every overlay's `spec.criteria`), after trimming and lower-casing. So a value AICR
knows but no overlay names (`--os rhel`; `--accelerator a100` on the v0.11.1 catalog) is a
valid query that resolves to the generic chain, while a value nobody knows is an error.

Aliases resolve before matching: `self-managed`, `self` and `vanilla` mean service `any`
(a cluster on no managed service), `openshift` means `ocp`, and `al2` / `al2023` mean os
`amazonlinux`. The CLI's `--gpu` is AICR's flag alias for `--accelerator`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.errors import did_you_mean

ANY = "any"

AICR_VALUES: dict[str, tuple[str, ...]] = {
    "service": ("aks", "bcm", "eks", "gke", "kind", "lke", "ocp", "oke"),
    "accelerator": ("a100", "b200", "gb200", "gb300", "h100", "h200", "l40", "rtx-pro-6000"),
    "os": ("amazonlinux", "cos", "ol", "rhel", "sles", "talos", "ubuntu"),
    "intent": ("inference", "training"),
    "platform": ("dynamo", "kubeflow", "nim", "runai", "slurm"),
}
"""The values AICR's `Parse*` functions accept without any catalog (`Get*Types`)."""

ALIASES: dict[str, dict[str, str]] = {
    "service": {"self-managed": ANY, "self": ANY, "vanilla": ANY, "openshift": "ocp"},
    "os": {"al2": "amazonlinux", "al2023": "amazonlinux"},
}
"""AICR's spellings that mean another value (`ParseService`, `ParseOS`)."""


def canonical(field: str, value: str) -> str:
    """`value` trimmed, lower-cased and de-aliased; '' and `any` are `any`."""
    text = value.strip().lower()
    if not text:
        return ANY
    return ALIASES.get(field, {}).get(text, text)


def known_values(field: str, catalog_values: Iterable[str]) -> list[str]:
    """AICR's own values for `field` and those the catalog's overlays use, sorted."""
    return sorted({*AICR_VALUES.get(field, ()), *catalog_values})


def unknown_value(field: str, value: str, vocabulary: Mapping[str, Iterable[str]]) -> str | None:
    """Why `value` is not a valid `--field` (None when it is), listing the valid ones."""
    if value == ANY:
        return None
    valid = known_values(field, vocabulary.get(field, ()))
    if value in valid:
        return None
    hint = did_you_mean(value, valid)
    tail = f" (did you mean {hint!r}?)" if hint else ""
    return (
        f"--{field} {value}: unknown value{tail}; valid values (AICR's and the catalog's): "
        f"{', '.join(valid)} (or any)"
    )
