"""What the adopter-path tests share (issue #41): the runners the example stacks' offline
plans register (the VM runner's rendered script, the ARC scale sets' Helm values), never a
list kept here, and readers of the docs' sections, tables and the examples' headers."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from components.oci.shapes import GPU_SHAPES
from stacks.offline.plan import plan_stack
from tests.workflows.github_tools import REPO

DOC = REPO / "docs" / "ci-integration.md"
MULTI_GPU_DOC = REPO / "docs" / "multi-gpu.md"
ACTION = REPO / ".github" / "actions" / "gpu-cluster"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
TRAINER = REPO / "examples" / "kubeflow-trainer-gpu-e2e.yaml"
MULTI_GPU = REPO / "examples" / "multi-gpu-e2e.yaml"
EXAMPLES = [TRAINER, MULTI_GPU]
ACTIONLINT_CONFIG = REPO / "examples" / "actionlint.yaml"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
LABEL_GATE = re.compile(r"contains\(github\.event\.pull_request\.labels\.\*\.name, '([^']+)'\)")
ZEROS = "0" * 40


# -- what the program registers -------------------------------------------------------------
@dataclass(frozen=True)
class Runner:
    """One runner (or scale set) a stack's plan registers: its label, group and kind."""

    stack: str
    label: str
    group: str
    kind: str  # "vm", "vm-launcher" or "gpu-pod"
    job_root: bool = False
    shape: str = ""

    @property
    def kind_text(self) -> str:
        """The table's `kind` cell."""
        if self.kind == "vm":
            return f"VM runner, `jobRoot: {str(self.job_root).lower()}`"
        if self.kind == "vm-launcher":
            return f"ARC `vm-launcher`, {self.shape}"
        return "ARC `gpu-pod`"

    @property
    def runs_the_action(self) -> bool:
        """Root on a host with Docker: a fresh VM per job, or a VM runner with jobRoot."""
        return self.kind == "vm-launcher" or (self.kind == "vm" and self.job_root)


def runners_of(stack: str, snapshot: dict[str, Any]) -> list[Runner]:
    found = []
    for resource in snapshot["resources"]:
        inputs = resource.get("inputs") or {}
        text = json.dumps(inputs)
        if resource["name"].endswith("-runner-github-runner"):
            # The runner step's script, as rendered (components/host/scripts/github-runner.sh).
            labels = re.search(r"readonly -a RUNNER_LABELS=\(([^)]*)\)", text)
            group = re.search(r"readonly RUNNER_GROUP=([\w.-]+)", text)
            root = re.search(r"readonly JOB_ROOT=(true|false)", text)
            assert labels and group and root, resource["name"]
            for label in labels.group(1).split():
                found.append(
                    Runner(stack, label, group.group(1), "vm", job_root=root.group(1) == "true")
                )
        values = inputs.get("values")
        if resource["type"] == "kubernetes:helm.sh/v3:Release" and isinstance(values, dict):
            if "runnerScaleSetName" not in values:
                continue
            (container,) = values["template"]["spec"]["containers"]
            shapes = [a.removeprefix("--shape=") for a in container.get("args", [])]
            shapes = [s for s in shapes if s in GPU_SHAPES]
            mode = (values.get("containerMode") or {}).get("type")
            kind = "vm-launcher" if shapes else "gpu-pod"
            assert shapes or mode == "kubernetes", resource["name"]
            shape = shapes[0] if shapes else ""
            found.append(
                Runner(
                    stack, values["runnerScaleSetName"], values["runnerGroup"], kind, False, shape
                )
            )
    return found


def stack_files() -> dict[str, dict[str, Any]]:
    return {
        path.name.removeprefix("Pulumi.").removesuffix(".yaml"): yaml.safe_load(path.read_text())
        for path in sorted(REPO.glob("Pulumi.*.yaml"))
    }


@cache
def registered() -> tuple[Runner, ...]:
    """Every runner the example stacks register: those whose config has a runner or ARC."""
    stacks = [
        name
        for name, data in stack_files().items()
        if {"gpu-ci:runner", "gpu-ci:arc"} & set(data["config"])
    ]
    assert stacks == ["arc", "dev"], stacks  # a new one: add its rows to the doc's table
    return tuple(r for stack in stacks for r in runners_of(stack, plan_stack(stack, REPO)))


# -- reading the docs -----------------------------------------------------------------------
def section(path: Path, heading: str) -> str:
    """The text under `heading` (a line of the page), up to the next heading of its level."""
    text = path.read_text()
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    level = len(heading.partition(" ")[0])
    end = re.search(rf"^#{{1,{level}}} ", text[start:], re.MULTILINE)
    return text[start : start + end.start()] if end else text[start:]


def header(path: Path) -> str:
    """An example's comment lines before its first key, `# ` taken off, one text."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:])
    return " ".join(" ".join(lines).split())


def flat(text: str) -> str:
    return " ".join(text.split())


def table_rows(text: str, marker: str) -> list[list[str]]:
    """The markdown table at the line `marker` (a comment above it, or its header row), as
    cells; its header row and rule left out."""
    lines = text[text.index(marker) :].splitlines()
    rows = []
    for line in lines[1:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    rows = [row for row in rows if not all(re.fullmatch(r"-+", cell) for cell in row)]
    return rows[1:] if marker.startswith("<!--") else rows


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))
