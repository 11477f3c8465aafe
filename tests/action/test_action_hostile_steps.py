"""The action's shell steps under hostile inputs (issue #29, item 3): every input checked in
every step before it is used, the Pulumi CLI only from the verified install, no tool from
the workspace, and no value the workflow gave ever read by the runner as a workflow
command (runner_commands.py reads the steps' output as the runner does).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .action_sandbox import ActionSandbox
from .runner_commands import Processed, file_entries, process

INJECTED = "kind\n::set-output name=kubeconfig::/tmp/evil"
INJECTIONS = [
    pytest.param(INJECTED, id="line-break-v2"),
    pytest.param("kind\r::add-mask::x", id="carriage-return"),
    pytest.param("kind ##[set-output name=kubeconfig;]/tmp/evil", id="v1-in-line"),
    pytest.param("%0A::set-output name=a::b", id="pre-escaped"),
]


def only_errors(stdout: str, stderr: str) -> Processed:
    """What the runner carries out of a failed step's output: error annotations only
    (stdout), nothing at all from stderr, and workflow commands on at the end."""
    processed = process(stdout)
    assert set(processed.names) == {"error"}, processed.commands
    assert processed.stopped is None
    assert process(stderr).commands == [], stderr
    return processed


def planted_pulumi(folder: Path) -> Path:
    """A `pulumi` in a folder of the workspace that leaves a mark when it runs."""
    marker = folder / "pulumi-ran"
    binary = folder / "pulumi" / "pulumi"
    binary.parent.mkdir(parents=True, exist_ok=True)
    binary.write_text(f"#!/bin/sh\ntouch {marker}\n")
    binary.chmod(0o755)
    return marker


def cluster_folder_in_the_workspace(runner: ActionSandbox) -> tuple[str, Path]:
    """A folder of the workspace that looks like a cluster's (env, plan.env, state, a CLI),
    and the cluster-name that would lead the steps there from $RUNNER_TEMP/gpu-ci."""
    folder = runner.workspace / "x"
    (folder / "state").mkdir(parents=True)
    marker = planted_pulumi(folder)
    (folder / "env").write_text(
        f"GPU_CI_STACK=gpu-cluster-kind\nGPU_CI_PULUMI={folder}/pulumi/pulumi\n"
        f"GPU_CI_PROJECT={runner.project}\n"
    )
    (folder / "plan.env").write_text("GPU_CI_K8S_PROVIDER_URN=\n")
    return "../../workspace/x", marker


# -- destroy: the name checked, the CLI only from the install --------------------------------
def test_destroy_refuses_a_cluster_name_that_leads_into_the_workspace(
    runner: ActionSandbox,
) -> None:
    name, marker = cluster_folder_in_the_workspace(runner)
    runner.overrides["GPU_CI_WORK"] = f"{runner.temp}/gpu-ci/{name}"  # as action.yml joins it
    run = runner.run("destroy", cluster_name=name)
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data == (
        "input cluster-name '../../workspace/x' is not a kind cluster name (lowercase "
        "letters, digits and '-', at most 32); nothing was destroyed"
    )
    assert not marker.exists()
    assert run.calls == []


def test_a_cluster_folder_that_is_not_runner_temps_is_refused(runner: ActionSandbox) -> None:
    """A valid name in GPU_CI_WORK is not enough: the folder must be $RUNNER_TEMP/gpu-ci's."""
    folder = runner.workspace / "kind"
    (folder / "state").mkdir(parents=True)
    marker = planted_pulumi(folder)
    runner.overrides["GPU_CI_WORK"] = str(folder)
    for step in ("destroy", "up", "install", "prepare", "configure"):
        run = runner.run(step)
        assert run.returncode == 1, step
        [error] = only_errors(run.stdout, run.stderr).annotations()
        assert error.data == (
            f"the cluster's folder '{folder}' is not $RUNNER_TEMP/gpu-ci/NAME for a kind "
            "cluster name NAME"
        )
    assert not marker.exists()


def test_a_cluster_folder_reached_through_a_symlink_is_refused(runner: ActionSandbox) -> None:
    planted_pulumi(runner.workspace / "kind")
    (runner.temp / "gpu-ci").symlink_to(runner.workspace)
    run = runner.run("destroy")
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data.endswith(
        "is reached through a symbolic link; the action makes its own folder there"
    )
    assert not (runner.workspace / "kind" / "pulumi-ran").exists()


def test_destroy_runs_the_installed_cli_whatever_the_env_file_says(
    runner: ActionSandbox,
) -> None:
    runner.up_to_install()
    assert runner.run("up").returncode == 0
    marker = planted_pulumi(runner.workspace)
    env = runner.work / "env"
    env.write_text(env.read_text() + f"GPU_CI_PULUMI={runner.workspace}/pulumi/pulumi\n")
    run = runner.run("destroy")
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data == f"unexpected key in {env}: GPU_CI_PULUMI"
    assert not marker.exists() and run.calls == []


@pytest.mark.parametrize(
    "line",
    ["GPU_CI_WORK=/tmp", "GPU_CI_KIND_CLUSTER[$(touch {marker})]=x", "GPU_CI_STACK=s"],
    ids=["work", "subscript", "env-file-key"],
)
def test_plan_env_sets_only_the_plans_facts(runner: ActionSandbox, line: str) -> None:
    runner.up_to_install()
    marker = runner.sandbox.base / "subscript-ran"
    plan_env = runner.work / "plan.env"
    plan_env.write_text(plan_env.read_text() + line.format(marker=marker) + "\n")
    run = runner.run("up")
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data.startswith("unexpected ") and str(plan_env) in error.data
    assert not marker.exists()
    assert not [c for c in run.calls if c.startswith("pulumi")]


# -- no tool from the workspace ----------------------------------------------------------
def test_no_tool_on_path_is_taken_from_the_workspace(runner: ActionSandbox) -> None:
    """A workflow that put a folder of the repository on PATH (or `.`, or an empty entry,
    both the step's working directory: the workspace) gives the action none of its tools."""
    tools = runner.workspace / "bin"
    tools.mkdir()
    marker = runner.workspace / "tool-ran"
    for name in ("curl", "tar", "sha256sum", "od", "pulumi", "bash", "mkdir"):
        (tools / name).write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
        (tools / name).chmod(0o755)
    linked = runner.sandbox.base / "linked-bin"
    linked.symlink_to(tools)
    runner.overrides["PATH"] = f"{tools}:.::{linked}:{runner.sandbox.bin}"
    runs = runner.up_to_install()
    assert not marker.exists()
    assert (
        f"gpu-ci step prepare: PATH entries left out (in the workspace, relative or missing): "
        f"{tools} . (empty) {linked}\n"
    ) in runs[0].stderr
    assert (runner.work / "pulumi" / "pulumi").is_file()  # the tarball's, extracted by tar


@pytest.mark.parametrize("hook", ["GPU_CI_ROOT", "GPU_CI_PROJECT"])
def test_the_tests_folders_cannot_be_the_workspace(runner: ActionSandbox, hook: str) -> None:
    runner.overrides[hook] = str(runner.workspace / "root")
    run = runner.run("prepare")
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data == f"{hook} ({runner.workspace}/root) is in the workspace"


def test_a_mirror_of_the_cli_needs_a_pinned_digest(runner: ActionSandbox) -> None:
    """The mirror would serve the checksums file too: nothing would be checked."""
    assert runner.run("prepare").returncode == 0
    assert runner.run("configure").returncode == 0
    runner.overrides["GPU_CI_PULUMI_DOWNLOADS"] = "https://mirror.example/pulumi"
    run = runner.run("install")
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data.startswith("GPU_CI_PULUMI_DOWNLOADS (a mirror) needs input pulumi-sha256")
    assert run.calls == []


@pytest.mark.parametrize(
    ("inputs", "cause"),
    [
        (
            {"pulumi_version": "3.272.0/../../x"},
            "input pulumi-version '3.272.0/../../x' must be X.Y.Z",
        ),
        (
            {"pulumi_sha256": "abc\n::x::y"},
            "input pulumi-sha256 'abc\n::x::y' must be 64 lowercase",
        ),
    ],
    ids=["version", "digest"],
)
def test_install_checks_its_inputs_again(
    runner: ActionSandbox, inputs: dict[str, str], cause: str
) -> None:
    assert runner.run("prepare").returncode == 0
    assert runner.run("configure").returncode == 0
    run = runner.run("install", **inputs)
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.data.startswith(cause)
    assert run.calls == []


# -- no value the workflow gave is a workflow command ------------------------------------
@pytest.mark.parametrize("value", INJECTIONS)
def test_a_hostile_command_is_one_annotation(runner: ActionSandbox, value: str) -> None:
    run = runner.run("inputs", command=value)
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert error.properties == {"title": "gpu-ci input command"}
    assert error.data == (
        f"input command '{value}': must be up (make the cluster), collect (a diagnostics "
        "bundle of it) or destroy (delete the one an up of this job made)"
    )


@pytest.mark.parametrize("step", ["inputs", "prepare", "destroy"])
@pytest.mark.parametrize("value", INJECTIONS)
def test_a_hostile_cluster_name_is_one_annotation(
    runner: ActionSandbox, step: str, value: str
) -> None:
    run = runner.run(step, cluster_name=value)
    assert run.returncode == 1
    [error] = only_errors(run.stdout, run.stderr).annotations()
    assert f"cluster-name '{value}'" in error.data
    assert "is not a kind cluster name" in error.data
    assert not runner.github_file("output")


def test_a_log_line_breaks_the_old_command_form(runner: ActionSandbox) -> None:
    """The die line on stderr: one line, `##[` broken, the value still readable."""
    run = runner.run("prepare", cluster_name="a ##[add-path]/tmp/evil\n::error::x")
    assert run.stderr == (
        "gpu-ci step prepare: cluster-name 'a ##%5Badd-path]/tmp/evil%0A::error::x' is not a "
        "kind cluster name (lowercase letters, digits and '-', at most 32)\n"
    )


def test_pulumis_output_is_text_only(runner: ActionSandbox) -> None:
    """`pulumi up` repeats values of the stack (stack-config's, the inputs'): it runs with
    workflow commands off, and its failed host steps are annotated after."""
    runner.up_to_install()
    runner.sandbox.put(
        "pulumi/up-fail",
        "::set-output name=kubeconfig::/tmp/evil\n##[add-mask]x\n"
        "    gpu-ci step nvkind-cluster: bad ::set-env name=A::B\n",
    )
    up = runner.run("up")
    assert up.returncode == 255
    processed = process(up.stdout)
    assert processed.stopped is None
    assert [(c.name, c.data) for c in processed.commands if c.name != "add-mask"] == [
        ("error", "bad ::set-env name=A::B"),
        (
            "error",
            "pulumi up (full) failed (exit 255) in host step(s) nvkind-cluster; their "
            "causes are above",
        ),
    ]
    assert "::set-output name=kubeconfig::/tmp/evil" in up.stdout  # shown, as text


def test_destroys_pulumi_output_is_text_only(runner: ActionSandbox) -> None:
    runner.up_to_install()
    assert runner.run("up").returncode == 0
    runner.sandbox.put("pulumi/destroy-fail", "::set-output name=a::b\n")
    run = runner.run("destroy")
    assert run.returncode == 255
    processed = process(run.stdout)
    assert processed.names == ["error"] and processed.stopped is None


# -- step outputs ------------------------------------------------------------------------
def test_a_value_with_a_line_break_stays_one_output(runner: ActionSandbox) -> None:
    run = runner.run("inputs", node_image="kindest/node:v1\ncluster-name=../../x")
    assert run.returncode == 0, run.stderr
    assert file_entries(runner.github_file("output")) == [
        ("cluster-name", "kind"),
        ("node-image", "kindest/node:v1\ncluster-name=../../x"),
        ("aliases", ""),
    ]
    text = runner.github_file("output")
    assert "node-image<<ghadelimiter_" in text


def test_a_gpu_name_with_a_line_break_stays_one_output(runner: ActionSandbox) -> None:
    """The up step's outputs come from the host (nvidia-smi's names) and the stack."""
    from .action_sandbox import OUTPUTS

    hostile = {**OUTPUTS, "host": {**OUTPUTS["host"]}}
    hostile["host"]["hosts"] = [
        {**OUTPUTS["host"]["hosts"][0], "gpus": [{"name": "NVIDIA A10\nkubeconfig=/tmp/evil"}]}
    ]
    runner.put_outputs(hostile)
    runner.up_to_install()
    up = runner.run("up")
    assert up.returncode == 0, up.stderr
    outputs = file_entries(runner.github_file("output"))
    assert [v for k, v in outputs if k == "kubeconfig"] == [str(runner.work / "kubeconfig")]
    assert dict(outputs)["gpus"] == "NVIDIA A10\nkubeconfig=/tmp/evil"
    assert file_entries(runner.github_file("env")) == [
        ("KUBECONFIG", str(runner.work / "kubeconfig"))
    ]


def test_pythons_environment_is_not_the_jobs(runner: ActionSandbox) -> None:
    """PYTHONPATH (a folder of the workspace, say) reaches no Python the action runs."""
    evil = runner.workspace / "py"
    evil.mkdir()
    marker = runner.workspace / "python-ran"
    (evil / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    runner.overrides["PYTHONPATH"] = str(evil)
    runner.up_to_install()
    assert not marker.exists()
    assert os.environ.get("PYTHONPATH") != str(evil)


# -- every step checks before it uses ------------------------------------------------------
def test_every_step_checks_its_folder_before_it_uses_it() -> None:
    """lib.sh's work_folder comes before any read or write of the cluster's folder."""
    from .action_sandbox import SCRIPTS

    used = re.compile(r'load_env|\$GPU_CI_WORK/|"\$GPU_CI_WORK"|\$GPU_CI_PULUMI')
    for script in sorted(SCRIPTS.glob("*.sh")):
        if script.name in ("lib.sh", "inputs.sh"):
            continue
        lines = [line for line in script.read_text().splitlines() if not line.startswith("#")]
        check = lines.index("work_folder")
        first_use = next(i for i, line in enumerate(lines) if used.search(line))
        assert check < first_use, script.name


def test_the_first_step_checks_the_command_for_every_command() -> None:
    from tests.workflows.github_tools import load_github_yaml

    from .action_sandbox import ACTION

    steps = load_github_yaml(ACTION / "action.yml")["runs"]["steps"]
    assert steps[0]["env"]["INPUT_COMMAND"] == "${{ inputs.command }}"
    assert "if" not in steps[0]
    assert all("if" in step for step in steps[1:])  # each one a command's, after the first
    assert not (ACTION / "scripts" / "unknown-command.sh").exists()
