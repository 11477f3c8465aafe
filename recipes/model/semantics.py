"""How each AICR release resolved a catalog: one record per release a catalog format is from.

A catalog is resolved as the AICR release of its format (`recipes.catalogs.versions`) resolved it:
`aicr.nvidia.com/v1alpha1` as AICR v0.11.1 (tag v0.11.1, bc05c6be, 2026-03-21), the
`aicr.run` formats as AICR of July 2026. Each rule that changed between them is a field
here, with the AICR change that made today's rule beside it; everything else is the same
in both (asymmetric matching, specificity, chains, registry defaults, ordering).

Rules that apply per overlay (the validation merge) follow that overlay's own format.
Rules that apply to the whole query follow the catalog's: when catalogs in several
formats are layered, the newest one's, since only a release that reads every document
could resolve the set (the project's `aicr.run` catalog layered over v0.11.1's gets
today's rules).
"""

from __future__ import annotations

from dataclasses import dataclass

from recipes.model.criteria_values import TODAY, V0_11_1, CriteriaRules
from recipes.model.validation import MergeRule


@dataclass(frozen=True)
class Semantics:
    """The resolution rules of one AICR release."""

    release: str
    rank: int
    """Release order: layered catalogs take the highest rank present."""
    validation_merge: MergeRule
    """How an overlay's validation phase merges onto the chain's: `replace` until AICR
    issue #1000 (`mergeValidationPhase`, fieldwise: checks and constraints unioned)."""
    values_null_deletes: bool
    """Whether a null in a later Helm values layer deletes the key (`mergeValues`): kept as
    a null until AICR PR #458 (2026-03-23, "handle null override in mergeValues to delete
    keys"); v0.11.1 hands `emptyDir: null` to Helm, which then drops the chart default."""
    criteria: CriteriaRules
    """The criteria values accepted: v0.11.1's fixed lists; since AICR PR #999 (issue
    #998) also every value the catalog's overlays pin."""
    os_guard: bool
    """Whether a query stating a service but no OS is refused when only OS-gated overlays
    carry that service (`requireOSIfNeeded`, AICR PR #1510 fixing issue #1534, June 2026).
    Before it, `gke` + `h100` without an OS matched no gke overlay (each pins `os: cos`)
    and resolved to the generic chain."""
    maximal_leaves: bool
    """Whether a matching overlay that is an ancestor of another match is dropped from the
    candidates (`filterToMaximalLeaves`, AICR PR #496, 2026-04-06). Before it every match
    was a candidate, applied least specific first with its chain; overlays already merged
    are skipped either way."""
    inline_health_checks: bool
    """Whether the registry's `healthCheck.assertFile` is inlined as `healthCheckAsserts`
    (`hydrateHealthCheckAsserts`, AICR PR #1231, 2026-06-08; PR #478 of 2026-04-01 notes the
    file "was never read" before). v0.11.1's recipe carried no asserts: its conformance
    validator read the registry's file itself (`defaults.with_health_check` gives it)."""


V0_11_1_SEMANTICS = Semantics(
    release="AICR v0.11.1",
    rank=1,
    validation_merge="replace",
    values_null_deletes=False,
    criteria=V0_11_1,
    os_guard=False,
    maximal_leaves=False,
    inline_health_checks=False,
)
TODAY_SEMANTICS = Semantics(
    release="AICR of July 2026",
    rank=2,
    validation_merge="fieldwise",
    values_null_deletes=True,
    criteria=TODAY,
    os_guard=True,
    maximal_leaves=True,
    inline_health_checks=True,
)
