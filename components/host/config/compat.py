"""Which driver x toolkit x CDI x nvkind x GPU-operator combinations are known to work.

Known breakages are DATA: `Rule` records whose `when` is a declarative predicate
(version ranges, an nvkind commit-date bound, booleans), evaluated by one generic
matcher. Adding a breakage means adding a record, never an `if`. nvkind has no
releases, so its commits are ordered by commit date. A combination the model has
no data about (an unknown toolkit version, say) is a warning, not an error.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from components.pins import PINS, Pins

Version = tuple[int, ...]

_VERSION = re.compile(r"^v?([0-9]+(?:\.[0-9]+)*)")


def parse_version(text: str) -> Version:
    """`1.18.1-1` -> (1, 18, 1); `v25.3.2` -> (25, 3, 2); a Debian revision is ignored."""
    match = _VERSION.match(text)
    if match is None:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(part) for part in match.group(1).split("."))


def base_version(text: str) -> str:
    """The upstream version without `v` or Debian revision: `1.17.8-1` -> `1.17.8`."""
    return ".".join(str(part) for part in parse_version(text))


class NvkindCommit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sha: str = Field(pattern=r"^[0-9a-f]{7,40}$")
    date: dt.date


class Combination(BaseModel):
    """One host configuration, as the stack would build it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    driver_branch: str
    toolkit_version: str
    cdi_enabled: bool
    nvkind: NvkindCommit
    gpu_operator_version: str | None = Field(
        None, description="None: this stack deploys no GPU operator (rules about it skip)"
    )
    device_plugin_only: bool = Field(
        False, description="the NVIDIA device plugin is deployed without the GPU operator"
    )
    volume_mounts_accepted: bool = True
    nvidia_default_runtime: bool = True

    @classmethod
    def from_pins(
        cls,
        pins: Pins = PINS,
        *,
        cdi_enabled: bool = False,
        gpu_operator_version: str | None = None,
    ) -> Combination:
        """The pinned host; the GPU operator's version is the recipe's (its registry)."""
        return cls(
            driver_branch=pins.driver_branch,
            toolkit_version=pins.toolkit_version,
            cdi_enabled=cdi_enabled,
            nvkind=NvkindCommit(sha=pins.nvkind.commit, date=pins.nvkind.commit_date),
            gpu_operator_version=gpu_operator_version,
        )


class VersionRange(BaseModel):
    """`[at_least, below)`; an absent bound is open."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at_least: str | None = None
    below: str | None = None

    def contains(self, version: str) -> bool:
        v = parse_version(version)
        if self.at_least is not None and v < parse_version(self.at_least):
            return False
        return self.below is None or v < parse_version(self.below)


class Predicate(BaseModel):
    """All given conditions must hold (AND); an absent condition matches anything."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toolkit: VersionRange | None = None
    driver_branch: VersionRange | None = None
    gpu_operator: VersionRange | None = None
    device_plugin_only: bool | None = None
    nvkind_committed_before: dt.date | None = None
    nvkind_committed_on_or_after: dt.date | None = None
    cdi_enabled: bool | None = None
    volume_mounts_accepted: bool | None = None
    nvidia_default_runtime: bool | None = None

    def matches(self, combo: Combination) -> bool:
        operator = combo.gpu_operator_version
        checks = (
            self.toolkit is None or self.toolkit.contains(combo.toolkit_version),
            self.driver_branch is None or self.driver_branch.contains(combo.driver_branch),
            self.gpu_operator is None
            or (operator is not None and self.gpu_operator.contains(operator)),
            self.device_plugin_only is None or self.device_plugin_only == combo.device_plugin_only,
            self.nvkind_committed_before is None
            or combo.nvkind.date < self.nvkind_committed_before,
            self.nvkind_committed_on_or_after is None
            or combo.nvkind.date >= self.nvkind_committed_on_or_after,
            self.cdi_enabled is None or self.cdi_enabled == combo.cdi_enabled,
            self.volume_mounts_accepted is None
            or self.volume_mounts_accepted == combo.volume_mounts_accepted,
            self.nvidia_default_runtime is None
            or self.nvidia_default_runtime == combo.nvidia_default_runtime,
        )
        return all(checks)


class Rule(BaseModel):
    """A known breakage: when `when` matches, report `reason` and how to `fix` it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    severity: Literal["error", "warning"] = "error"
    when: Predicate
    reason: str
    fix: str
    reference: str = ""


class Known(BaseModel):
    """What the model has data about; anything else draws a warning."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toolkit_versions: frozenset[str]
    driver_branches: frozenset[str]
    gpu_operator_versions: frozenset[str]
    nvkind_commits: frozenset[str]


class Finding(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    reason: str
    fix: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.reason} Fix: {self.fix}"


class Report(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    errors: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


NVKIND_JIT_CDI_FIX = dt.date(2026, 4, 20)

RULES: tuple[Rule, ...] = (
    Rule(
        id="nvkind-61-jit-cdi-umount",
        when=Predicate(
            toolkit=VersionRange(at_least="1.18.0"),
            nvkind_committed_before=NVKIND_JIT_CDI_FIX,
        ),
        reason=(
            "toolkit >= 1.18 makes just-in-time CDI the nvidia runtime's default, and nvkind "
            "older than commit 9a3061c (2026-04-20) then fails node setup with "
            "`umount: /proc/driver/nvidia: not mounted`."
        ),
        fix=("pin nvkind at commit 9a3061c (2026-04-20) or later, or keep the toolkit below 1.18."),
        reference="https://github.com/NVIDIA/nvkind/issues/61",
    ),
    Rule(
        id="toolkit-1.18-containerd-dropin-path",
        when=Predicate(toolkit=VersionRange(at_least="1.18.0", below="1.19.0")),
        reason=(
            "toolkit 1.18.x writes containerd drop-in configs to `config.d` instead of "
            "`conf.d`, so containerd (inside kind nodes) never loads the nvidia runtime."
        ),
        fix="use toolkit 1.19.0 or later (or stay on 1.17.x).",
        reference="NVIDIA container toolkit 1.19.0 release notes",
    ),
    Rule(
        id="nvkind-needs-volume-mounts",
        when=Predicate(volume_mounts_accepted=False),
        reason=(
            "nvkind injects GPUs as /dev/null mounts at /var/run/nvidia-container-devices/*, "
            "which the toolkit ignores unless accept-nvidia-visible-devices-as-volume-mounts "
            "is true."
        ),
        fix="run the toolkit-config step (sets accept-nvidia-visible-devices-as-volume-mounts).",
    ),
    Rule(
        id="nvkind-needs-nvidia-default-runtime",
        when=Predicate(nvidia_default_runtime=False),
        reason=(
            "kind starts node containers with Docker's default runtime; unless it is nvidia "
            "the GPU mounts are never turned into devices."
        ),
        fix="run the toolkit-config step (nvidia-ctk runtime configure --set-as-default).",
    ),
    Rule(
        id="nvkind-20-device-plugin-alone",
        severity="warning",
        when=Predicate(device_plugin_only=True),
        reason=(
            "with the device plugin installed alone, workers lacking the label "
            "nvidia.com/gpu.present=true get no device-plugin pods (nvkind#20)."
        ),
        fix="install the GPU operator with nfd.enabled=true, or label the GPU workers.",
        reference="https://github.com/NVIDIA/nvkind/issues/20",
    ),
)

KNOWN = Known(
    toolkit_versions=frozenset(
        {"1.17.0", "1.17.8", "1.18.0", "1.18.1", "1.19.0", "1.19.1", "1.20.0"}
    ),
    driver_branches=frozenset({"535", "550", "570", "575", "580"}),
    gpu_operator_versions=frozenset({"25.3.2", "25.10.0", "26.3.1", "26.7.0"}),
    nvkind_commits=frozenset({PINS.nvkind.commit}),
)


def _unknowns(combo: Combination, known: Known) -> list[Finding]:
    found = []
    toolkit = base_version(combo.toolkit_version)
    if toolkit not in known.toolkit_versions:
        found.append(
            Finding(
                rule="unknown-toolkit-version",
                reason=f"toolkit {toolkit} is not in the compatibility data.",
                fix="test it on a GPU host, then add it (and any breakage) to compat.py.",
            )
        )
    branch = base_version(combo.driver_branch)
    if branch not in known.driver_branches:
        found.append(
            Finding(
                rule="unknown-driver-branch",
                reason=f"driver branch {branch} is not in the compatibility data.",
                fix="test it on a GPU host, then add it to compat.py.",
            )
        )
    operator = combo.gpu_operator_version
    if operator is not None and base_version(operator) not in known.gpu_operator_versions:
        found.append(
            Finding(
                rule="unknown-gpu-operator-version",
                reason=f"GPU operator {operator} is not in the compatibility data.",
                fix="test it on a GPU host, then add it to compat.py.",
            )
        )
    if not any(
        combo.nvkind.sha.startswith(c) or c.startswith(combo.nvkind.sha)
        for c in known.nvkind_commits
    ):
        found.append(
            Finding(
                rule="unknown-nvkind-commit",
                reason=(
                    f"nvkind commit {combo.nvkind.sha} ({combo.nvkind.date}) is not in the "
                    "compatibility data; only date-based rules were applied."
                ),
                fix="test it on a GPU host, then add it to compat.py.",
            )
        )
    return found


def check(combo: Combination, rules: tuple[Rule, ...] = RULES, known: Known = KNOWN) -> Report:
    """Errors for known-bad combinations, warnings for weak or unknown ones."""
    matched = [rule for rule in rules if rule.when.matches(combo)]
    errors = tuple(
        Finding(rule=r.id, reason=r.reason, fix=r.fix) for r in matched if r.severity == "error"
    )
    warnings = tuple(
        Finding(rule=r.id, reason=r.reason, fix=r.fix) for r in matched if r.severity == "warning"
    )
    return Report(errors=errors, warnings=(*warnings, *_unknowns(combo, known)))
