"""configure.py itself, in this process: what it writes for the later steps (the stack file,
stack.json, plan.env, versions.json, its outputs and log lines), its phases, and its entry
point's checks. The offline plan is the program's CLI once for the module (`recorded`);
each test then gets that snapshot from a stand-in (`fake_plan`), so that a mutation run
(`python3 tasks.py mutate .github/actions/gpu-cluster/scripts/configure.py`) takes
seconds per mutant. test_action_inputs.py runs the real plan in process, and its
`test_the_configure_step_in_a_job` the step as a job runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .action_sandbox import DEFAULT_INPUTS, REPO, SCRIPTS
from .configure_in_process import STACK, Job, load_script
from .runner_commands import file_entries

IMAGES = "ghcr.io/kubeflow/trainer:test\nexample.com/other:1"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The offline plan of the default inputs' stack, as configure.py plans it in a job."""
    base = tmp_path_factory.mktemp("recorded")
    work = base / "temp" / "gpu-ci" / "kind"
    work.mkdir(parents=True)
    (base / "project").mkdir()
    (base / "project" / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (work / "env").write_text(
        f"GPU_CI_PROGRAM={REPO}\nGPU_CI_PROJECT={base / 'project'}\nGPU_CI_STACK={STACK}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    env.update(DEFAULT_INPUTS)
    env.update(GPU_CI_WORK=str(work), RUNNER_TEMP=str(base / "temp"), GITHUB_WORKSPACE=str(base))
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "configure.py")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot: dict[str, Any] = json.loads((work / "plan.json").read_text())
    return snapshot


@pytest.fixture
def planned(job: Job, recorded: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """configure.py's `plan`, replaced by the recorded snapshot; each call's arguments."""
    calls: list[Any] = []

    def fake_plan(program: Path, project: Path, stack: str, out: Path, origins: Any) -> Any:
        calls.append((program, project, stack, out, origins))
        out.write_text(json.dumps(recorded))
        return json.loads(json.dumps(recorded))

    monkeypatch.setattr(job.module, "plan", fake_plan)
    return calls


def stack_file(job: Job) -> Path:
    return job.project / f"Pulumi.{STACK}.yaml"


def test_configure_writes_what_the_later_steps_read(
    job: Job, planned: list[Any], recorded: dict[str, Any]
) -> None:
    offline_plan = load_script("offline_plan")
    (job.workspace / "labels.yaml").write_text("config:\n  gpu-ci:cluster.workerLabels: {a: b}\n")
    outcome = job.configure(load_images=IMAGES, stack_config="labels.yaml")
    assert outcome.code == 0, outcome.printed
    assert outcome.stdout == ""
    # The plan: of the stack file written, into plan.json, told in the inputs' words.
    [(program, project, stack, out, origins)] = planned
    assert (program, project, stack, out) == (REPO, job.project, STACK, job.work / "plan.json")
    # Who set each key: the inputs, the action itself, the stack-config file.
    assert origins.sources["gpu-ci:cluster.name"].input == "cluster-name"
    assert origins.sources["gpu-ci:capacity"].did.startswith("the action creates no machine")
    assert origins.sources["gpu-ci:cluster.workerLabels.a"].input == "stack-config"
    # The stack: stack.json (for the phases) and the stack file, the same config.
    config = json.loads((job.work / "stack.json").read_text())
    assert (job.work / "stack.json").read_text() == json.dumps(config, indent=2) + "\n"
    assert config["gpu-ci:capacity"] == "none" and config["gpu-ci:cluster"]["name"] == "kind"
    written = stack_file(job).read_text()
    assert (
        written.splitlines()[1] == f"# phase: full. Plan it offline: python -m stacks plan {STACK}"
    )
    assert yaml.safe_load(written) == {"config": config}
    # plan.env: the plan's facts, the images and the platform, one a line.
    facts = offline_plan.facts_of(recorded, REPO)
    facts["GPU_CI_IMAGES"] = "ghcr.io/kubeflow/trainer:test example.com/other:1"
    facts["GPU_CI_PLATFORM"] = "true"
    assert (job.work / "plan.env").read_text() == (
        "# Read from the offline plan by the configure step.\n"
        + "".join(f"{k}={v}\n" for k, v in facts.items())
    )
    versions = offline_plan.versions_of(recorded, facts)
    assert (job.work / "versions.json").read_text() == json.dumps(versions, indent=2) + "\n"
    # Its outputs and log lines.
    arch = load_script("inputs_config").host_arch()
    assert file_entries(job.output.read_text()) == [
        ("tools-key", offline_plan.tools_key(facts, arch)),
        ("stack-file", str(stack_file(job))),
    ]
    count = len([r for r in recorded["resources"] if r.get("custom")])
    assert outcome.stderr == (
        f"gpu-ci step configure: wrote {stack_file(job)}\n"
        f"gpu-ci step configure: the stack plans: {count} resources; versions "
        f"{json.dumps(versions)}\n"
    )


def test_images_without_a_platform_are_loaded_after_the_cluster(
    job: Job, planned: list[Any]
) -> None:
    outcome = job.configure(load_images=IMAGES, deploy_platform="false")
    assert outcome.code == 0, outcome.printed
    assert outcome.stderr.splitlines()[0] == (
        "gpu-ci step configure: load-images without a platform: the images are loaded after "
        "the cluster"
    )
    assert "GPU_CI_PLATFORM=false\n" in (job.work / "plan.env").read_text()
    assert "gpu-ci:platform" not in json.loads((job.work / "stack.json").read_text())


def test_a_previous_jobs_stack_file_is_not_kept(job: Job, planned: list[Any]) -> None:
    """Its salt would not match this job's state (a new passphrase, a new backend)."""
    stack_file(job).write_text("encryptionsalt: v1:old\nconfig: {}\n")
    assert job.configure().code == 0
    assert "encryptionsalt" not in stack_file(job).read_text()


def test_every_problem_stops_before_anything_is_written(job: Job, planned: list[Any]) -> None:
    """The inputs', the tools' and stack-config's problems, all told at once."""
    (job.workspace / "vm.yaml").write_text("config:\n  gpu-ci:capacity: vm\n")
    outcome = job.configure(gpu_count="0", pulumi_sha256="abc", stack_config="vm.yaml")
    assert outcome.code == 1
    assert [a.split("::")[1] for a in outcome.annotations] == [
        "error title=gpu-ci input pulumi-sha256",
        "error title=gpu-ci input gpu-count",
        "error title=gpu-ci input stack-config",
    ]
    assert planned == []
    assert not stack_file(job).exists() and not (job.work / "stack.json").exists()


def test_a_stack_config_that_does_not_read_stops_before_the_plan(
    job: Job, planned: list[Any]
) -> None:
    outcome = job.configure(stack_config="missing.yaml")
    assert outcome.annotations == [
        "::error title=gpu-ci input stack-config::input stack-config 'missing.yaml': cannot "
        "read it (No such file or directory)"
    ]
    assert planned == []


def test_a_fact_with_a_line_break_stops_the_step(
    job: Job, planned: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """plan.env is read a line at a time: such a value would set a key of its own."""
    monkeypatch.setattr(job.module, "facts_of", lambda snapshot, program: {"GPU_CI_A": "x\ry"})
    outcome = job.configure()
    assert outcome.code == 1
    assert outcome.annotations == [
        "::error title=gpu-ci step configure::the plan's GPU_CI_A spans lines; no value of the "
        "plan does: report it"
    ]
    assert not (job.work / "plan.env").exists()
    assert job.module.env_file("h", {"A": "1", "B": "2"}) == "# h\nA=1\nB=2\n"
    with pytest.raises(SystemExit):
        job.module.env_file("h", {"GPU_CI_B": "x\nGPU_CI_PULUMI=/tmp/evil"})


def test_the_env_file_is_read_as_prepare_writes_it(job: Job) -> None:
    path = job.work / "env"
    path.write_text("# comment=1\n\nGPU_CI_PROJECT=/a=b\nGPU_CI_STACK=s\n")
    assert job.module.read_env_file(path) == {"GPU_CI_PROJECT": "/a=b", "GPU_CI_STACK": "s"}


# -- the phases: the stack without its platform, then whole ------------------------------
def test_the_phases_rewrite_the_stack_file_keeping_what_pulumi_added(
    job: Job, planned: list[Any]
) -> None:
    assert job.configure().code == 0
    text = stack_file(job).read_text()
    stack_file(job).write_text(text + "encryptionsalt: v1:c2FsdA==\nsecretsprovider: passphrase\n")
    cluster = job.main("phase", "cluster")
    assert cluster.code == 0, cluster.printed
    data = yaml.safe_load(stack_file(job).read_text())
    assert "gpu-ci:platform" not in data["config"] and "gpu-ci:cluster" in data["config"]
    assert (data["encryptionsalt"], data["secretsprovider"]) == ("v1:c2FsdA==", "passphrase")
    assert stack_file(job).read_text().splitlines()[1] == (
        f"# phase: cluster. Plan it offline: python -m stacks plan {STACK}"
    )
    assert job.main("phase", "full").code == 0
    data = yaml.safe_load(stack_file(job).read_text())
    assert data["config"] == json.loads((job.work / "stack.json").read_text())
    assert data["encryptionsalt"] == "v1:c2FsdA=="


def test_a_stack_file_that_does_not_read_stops_the_phase(job: Job, planned: list[Any]) -> None:
    assert job.configure().code == 0
    stack_file(job).write_text("config: [unclosed\n")
    outcome = job.main("phase", "cluster")
    assert outcome.code == 1
    [annotation] = outcome.annotations
    assert annotation.startswith(
        f"::error title=gpu-ci step configure::cannot rewrite Pulumi.{STACK}.yaml: "
        f"Pulumi.{STACK}.yaml: not valid YAML"
    )


# -- the entry point: its folder and its arguments ------------------------------------------
def test_main_configures(job: Job, planned: list[Any]) -> None:
    outcome = job.main()
    assert outcome.code == 0, outcome.printed
    assert len(planned) == 1 and stack_file(job).is_file()


@pytest.mark.parametrize(
    ("argv", "cause"),
    [
        (("phase", "other"), "unknown phase 'other' (cluster or full)"),
        (("phase",), "usage: configure.py [phase cluster|full], not phase"),
        (("phase", "full", "x"), "usage: configure.py [phase cluster|full], not phase full x"),
        (("plan",), "usage: configure.py [phase cluster|full], not plan"),
    ],
    ids=["unknown-phase", "no-phase", "extra", "other"],
)
def test_main_refuses_other_arguments(job: Job, argv: tuple[str, ...], cause: str) -> None:
    (job.work / "stack.json").write_text("{}")
    outcome = job.main(*argv)
    assert outcome.code == 1
    assert outcome.annotations == [f"::error title=gpu-ci step configure::{cause}"]
    assert not stack_file(job).exists()


def test_main_needs_the_prepare_steps_env_file(job: Job) -> None:
    (job.work / "env").unlink()
    outcome = job.main()
    assert outcome.annotations == [
        f"::error title=gpu-ci step configure::{job.work}/env is missing: the action's prepare "
        "step has not run"
    ]


def elsewhere(job: Job, how: str) -> None:
    """Make GPU_CI_WORK (or RUNNER_TEMP) something other than $RUNNER_TEMP/gpu-ci/NAME."""
    setenv = job.monkeypatch.setenv
    if how == "relative-temp":
        setenv("RUNNER_TEMP", "runner-temp")
    elif how == "no-temp":
        job.monkeypatch.delenv("RUNNER_TEMP")
    elif how == "other-folder":
        setenv("GPU_CI_WORK", str(job.workspace / "kind"))
    elif how == "dot-dot":
        setenv("GPU_CI_WORK", f"{job.temp}/gpu-ci/../../workspace/kind")
    elif how == "bad-name":
        setenv("GPU_CI_WORK", f"{job.temp}/gpu-ci/Kind")
    elif how == "symlink":
        (job.temp / "gpu-ci" / "link").symlink_to(job.work)
        setenv("GPU_CI_WORK", f"{job.temp}/gpu-ci/link")
    elif how == "symlinked-parent":
        setenv("RUNNER_TEMP", str(job.temp.parent))
        setenv("GPU_CI_WORK", f"{job.temp.parent}/gpu-ci/kind")
        (job.temp.parent / "gpu-ci").symlink_to(job.temp / "gpu-ci")


@pytest.mark.parametrize(
    "how",
    [
        "relative-temp",
        "no-temp",
        "other-folder",
        "dot-dot",
        "bad-name",
        "symlink",
        "symlinked-parent",
    ],
)
def test_main_works_only_in_runner_temps_cluster_folder(
    job: Job, planned: list[Any], how: str
) -> None:
    elsewhere(job, how)
    outcome = job.main()
    assert outcome.code == 1
    [annotation] = outcome.annotations
    assert annotation.startswith("::error title=gpu-ci step configure::the cluster's folder '")
    assert annotation.endswith("' is not $RUNNER_TEMP/gpu-ci/NAME for a kind cluster name NAME")
    assert planned == []
