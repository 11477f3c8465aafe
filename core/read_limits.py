"""How much one file of each kind may hold, and why that much: the bounds of the one careful
reader (`core.read_files`, `core.read_yaml`, `core.read_json`).

A bound exists so that hostile or careless input ends in one message instead of a hang, a
`MemoryError` or a `RecursionError`: a named pipe that never answers, a file of gigabytes,
an "alias bomb" (a few lines of nested YAML aliases that expand to a billion values), lists
nested a million deep. Each bound sits far above what a real file of its kind holds (the
figures in `reason` were measured on the files named there) and far below what breaks the
reader; `reason` is part of the message a refusal prints.
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class Limits:
    """The bounds of one kind of file; `kind` and `reason` are what a refusal says."""

    kind: str
    """What the file is, in messages: "no {kind} nests that deep"."""
    max_bytes: int
    max_depth: int
    """Collections (mappings and lists) inside one another (unused for text not parsed)."""
    max_values: int
    """YAML nodes once aliases are expanded (unused for JSON, which has no aliases: its size
    bounds how many values it holds)."""
    reason: str


STACK_FILE = Limits(
    kind="stack config",
    max_bytes=4 * MIB,
    max_depth=100,
    max_values=100_000,
    reason="this project's stack files are under 8 KiB and nest at most 8 deep",
)
"""`Pulumi.<stack>.yaml`, `Pulumi.yaml`, an ESC definition, the action's `stack-config`."""

CATALOG_FILE = Limits(
    kind="recipe catalog file",
    max_bytes=4 * MIB,
    max_depth=100,
    max_values=500_000,
    reason=(
        "the largest file of AICR's catalogs (v0.11.1 and 2026-07-09) is the 585 KiB "
        "Gateway API CRDs: 5 documents, 9,120 values, 24 deep"
    ),
)
"""Every file a recipe catalog holds: registry, overlays, mixins, values, manifests, checks."""

PLAN_SNAPSHOT = Limits(
    kind="plan snapshot",
    max_bytes=64 * MIB,
    max_depth=200,
    max_values=0,
    reason=(
        "the example stacks' snapshots are under 400 KiB and nest 17 deep; a snapshot holds "
        "Helm values a catalog may nest 100 deep, under a few levels of its own"
    ),
)
"""`plan --json` and `plan --all --json-dir` output, read back by `stacks diff`."""

PLAN_ERROR = Limits(
    kind="plan error file",
    max_bytes=1 * MIB,
    max_depth=0,
    max_values=0,
    reason="`plan --all` writes one line there: why the stack did not plan",
)
"""`STACK.error` in a `plan --all --json-dir` folder."""

ACTION_INPUT = Limits(
    kind="gpu-cluster action input",
    max_bytes=64 * KIB,
    max_depth=8,
    max_values=10_000,
    reason="an input such as `gpus: [[0], [1]]` is one short line",
)
"""A YAML-valued input of the gpu-cluster action."""

HOST_RESULT = Limits(
    kind="host step result",
    max_bytes=1 * MIB,
    max_depth=16,
    max_values=0,
    reason="a step's result line is one JSON object of a few hundred bytes, 3 deep",
)
"""The JSON line a host step prints last (`components.host.result`)."""

CHART_FILE = Limits(
    kind="chart file",
    max_bytes=4 * MIB,
    max_depth=100,
    max_values=500_000,
    reason="the largest values.yaml gpu-ci deploys (kube-prometheus-stack 84.4.0) is under 300 KiB",
)

RENDERED_CHART = Limits(
    kind="rendered chart",
    max_bytes=64 * MIB,
    max_depth=100,
    max_values=5_000_000,
    reason="kube-prometheus-stack 84.4.0, the largest chart gpu-ci deploys, renders about "
    "2 MiB with its CRDs",
)

VALIDATOR_RESULTS = Limits(
    kind="kubectl-validate result",
    max_bytes=64 * MIB,
    max_depth=32,
    max_values=0,
    reason="one status per object: a few hundred bytes each",
)

AICR_JSON = Limits(
    kind="aicr output or golden",
    max_bytes=64 * MIB,
    max_depth=200,
    max_values=0,
    reason="aicr's hydrated recipes of the two catalogs and their goldens are under 1 MiB",
)
"""What tools/aicr_golden.py reads: a recipe a trusted aicr binary printed, and the golden
on record."""


STATE_EXPORT = Limits(
    kind="stack state export",
    max_bytes=256 * MIB,
    max_depth=200,
    max_values=0,
    reason=(
        "`pulumi stack export` of a stack holds each resource's inputs and outputs, about "
        "twice a plan snapshot (under 400 KiB here); Helm values nest 100 deep under a few "
        "levels of the deployment's own"
    ),
)
"""`pulumi stack export` output, read by `stacks diff --state` (stacks/offline/state/export.py)."""

HOST_PROBE = Limits(
    kind="host probe report",
    max_bytes=1 * MIB,
    max_depth=8,
    max_values=0,
    reason="components/host/scripts/host-probe.sh prints one JSON object of under 2 KiB, 3 deep",
)
"""What the drift job's host probe printed (components/host/probe_compare.py)."""


def size_text(count: int) -> str:
    """`4 MiB`, `585 KiB`, `120 bytes`: a size as a refusal names it."""
    for unit, size in (("MiB", MIB), ("KiB", KIB)):
        if count >= size:
            whole, rest = divmod(count, size)
            return f"{whole} {unit}" if rest == 0 else f"{count / size:.1f} {unit}"
    return f"{count} bytes"
