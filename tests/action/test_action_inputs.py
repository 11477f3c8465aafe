"""The action speaks in its inputs (issue #27, item 5).

A problem is told once, as one `::error` annotation titled after the input(s), naming
each input and the value the workflow gave it; one the program's config checks find in
the stack file the action writes is mapped back from its key to the input that set it,
never told as a key of that file. helm/kind-action's inputs are aliases or refused by
name. `command: destroy` without a cluster warns naming it.

configure.py runs in this process (`job`, configure_in_process.py; its plan is the
program's CLI, as in a job); the shell steps run in the stub sandbox (`runner`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .action_sandbox import ACTION, ActionSandbox
from .configure_in_process import Job, Outcome, load_script

STACK_FILE = "Pulumi.gpu-cluster-kind.yaml"


def only_annotation(outcome: Outcome, level: str = "error") -> str:
    annotations = [a for a in outcome.annotations if a.startswith(f"::{level} ")]
    assert len(annotations) == 1, outcome.printed
    return annotations[0]


def in_the_stack_files_words(text: str) -> list[str]:
    """What the user never sees told as the thing to fix: the action's stack file, its keys."""
    return re.findall(r"gpu-ci:[\w.\[\]-]+|Pulumi\.gpu-cluster-kind\.yaml|Fix each key", text)


# -- the three examples ------------------------------------------------------------
def test_one_per_gpu_without_a_count_names_the_gpu_count_input(job: Job) -> None:
    outcome = job.configure(gpus="one-per-gpu")
    assert outcome.code == 1
    annotation = only_annotation(outcome)
    assert annotation.startswith("::error title=gpu-ci input gpus::input gpus 'one-per-gpu': ")
    assert "one-per-gpu needs the host's GPU count: set input gpu-count" in annotation
    assert in_the_stack_files_words(annotation) == []
    assert "Fix each key" not in outcome.printed
    assert not job.planned


def test_a_missing_commit_date_is_named_as_its_input(job: Job) -> None:
    outcome = job.configure(nvkind_commit="24c190e")
    assert outcome.code == 1
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci input nvkind-commit-date::input nvkind-commit-date (empty): "
        "is needed with nvkind-commit '24c190e'"
    )
    assert "commitDate" not in outcome.printed
    assert not (job.project / STACK_FILE).exists()  # stopped before the stack is written


@pytest.mark.parametrize(
    ("inputs", "cause"),
    [
        ({"accelerator": "h100"}, "no overlay in the catalog supports it"),
        ({"gpus": "one-per-gpu"}, "one-per-gpu needs the host's GPU count"),
        ({"cdi": "yes"}, "must be true or false"),
    ],
    ids=["program-check", "program-check-at-a-map", "action-check"],
)
def test_each_problem_is_printed_once(job: Job, inputs: dict[str, str], cause: str) -> None:
    outcome = job.configure(**inputs)
    assert outcome.code == 1
    assert outcome.printed.count(cause) == 1, outcome.printed
    assert cause in only_annotation(outcome)
    assert outcome.stderr.splitlines()[-1] == (
        "gpu-ci step configure: stopped before anything was created: 1 problem, each in an "
        "annotation above"
    )


# -- the program's problems, mapped back to the inputs -------------------------------------
def test_a_bad_commit_date_is_the_date_input(job: Job) -> None:
    outcome = job.configure(nvkind_commit="24c190e", nvkind_commit_date="2026-13-45")
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci input nvkind-commit-date::input nvkind-commit-date '2026-13-45': "
        "Input should be a valid date"
    )
    assert "[given:" not in annotation  # the input's value is shown, not the stack file's
    assert in_the_stack_files_words(annotation) == []


def test_a_known_bad_combination_names_every_input_in_it(job: Job) -> None:
    outcome = job.configure(
        toolkit_version="1.18.1-1", nvkind_commit="24c190e", nvkind_commit_date="2026-01-10"
    )
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci inputs toolkit-version%2C nvkind-commit%2C nvkind-commit-date::"
        "inputs toolkit-version '1.18.1-1', nvkind-commit '24c190e', nvkind-commit-date "
        "'2026-01-10': known-bad combination: [nvkind-61-jit-cdi-umount]"
    )
    assert in_the_stack_files_words(annotation) == []


def test_a_platform_set_problem_names_its_line(job: Job) -> None:
    outcome = job.configure(platform_set="kubeflow-trainer:image.tag=test\nnosuch:x=1\n")
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci input platform-set::input platform-set line 2 'nosuch:x=1': "
        "platform override 'nosuch': component is not in the recipe"
    )


def test_a_camel_case_key_is_told_as_its_input(job: Job) -> None:
    """nodeImage, reported at `gpu-ci:cluster` (a check across its keys), is node-image."""
    outcome = job.configure(node_image="kindest/node:v1.1.0")
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci input node-image::input node-image 'kindest/node:v1.1.0': "
        "node-image 'kindest/node:v1.1.0' is Kubernetes 1.1"
    )
    assert "nodeImage" not in annotation


def test_a_value_with_a_line_break_stays_in_its_one_annotation(job: Job) -> None:
    outcome = job.configure(node_image="kindest/node:v1.35.0\n::error::injected 100%")
    annotation = only_annotation(outcome)
    assert "input node-image 'kindest/node:v1.35.0%0A::error::injected 100%25': " in annotation
    assert not [line for line in outcome.stdout.splitlines() if line.startswith("::error::")]


def test_an_alias_the_workflow_used_names_the_problem(job: Job) -> None:
    job.monkeypatch.setenv("GPU_CI_ALIASES", "cluster-name=cluster_name node-image=node_image")
    outcome = job.configure(node_image="kindest/node:v1.1.0")
    annotation = only_annotation(outcome)
    assert annotation.startswith(
        "::error title=gpu-ci input node_image::input node_image 'kindest/node:v1.1.0': "
        "node_image 'kindest/node:v1.1.0' is Kubernetes 1.1"
    )


def test_a_key_of_the_workflows_stack_config_is_named_as_written(job: Job) -> None:
    (job.workspace / "typo.yaml").write_text("config:\n  gpu-ci:cluster: {nmae: other}\n")
    outcome = job.configure(stack_config="typo.yaml")
    assert only_annotation(outcome).startswith(
        "::error title=gpu-ci input stack-config::input stack-config 'typo.yaml': "
        "gpu-ci:cluster.nmae: unknown key (did you mean 'name'?); allowed keys: name, "
    )


def test_a_warning_of_the_plan_is_told_in_the_inputs_words(job: Job) -> None:
    outcome = job.configure(intent="inference")
    assert outcome.code == 0, outcome.printed
    warning = only_annotation(outcome, "warning")
    assert warning.startswith(
        "::warning title=gpu-ci inputs service%2C accelerator%2C intent%2C platform::"
        "inputs service 'kind', accelerator 'a10', intent 'inference', platform 'kubeflow': "
        "unchecked recipe constraints"
    )
    assert outcome.printed.count("unchecked recipe constraints") == 1


# -- Origins: who set each key -------------------------------------------------------------
@pytest.fixture
def origins(job: Job) -> Any:
    job.set(stack_config="extra.yaml")  # its config, as stack_config_file read it:
    problems: list[Any] = []
    from_inputs = load_script("inputs_config").config_from_inputs(problems)
    assert problems == []
    from_file = load_script("stack_file").nest({"gpu-ci:cluster.workerLabels": {"team": "a"}})
    return load_script("input_origins").Origins(from_inputs, from_file)


def test_a_key_the_action_sets_itself_says_what_it_did(origins: Any) -> None:
    problem = origins.problem("gpu-ci:host.arch", "no nvkind binary for this architecture")
    assert problem.inputs == ()
    assert problem.title == "gpu-ci step configure"
    assert re.fullmatch(
        r"the action took the CPU architecture (amd64|arm64) from this runner \(the job's "
        r"runs-on picks that runner\): no nvkind binary for this architecture",
        problem.text,
    )


def test_the_sub_keys_a_message_names_pick_the_inputs(origins: Any) -> None:
    problem = origins.problem("gpu-ci:cluster", "workerLabels clash with gpus [given: {}]")
    assert [g.name for g in problem.inputs] == ["gpus", "stack-config"]
    assert problem.text == (
        "inputs gpus 'all', stack-config 'extra.yaml': gpu-ci:cluster: workerLabels clash with "
        "gpus [given: {}]"
    )


def test_a_map_key_without_a_named_sub_key_is_every_given_input_under_it(origins: Any) -> None:
    problem = origins.problem("gpu-ci:platform", "no recipe matches [given: {}]")
    assert problem.title == "gpu-ci inputs service, accelerator, intent, platform"
    assert problem.text == (
        "inputs service 'kind', accelerator 'a10', intent 'training', platform 'kubeflow': "
        "no recipe matches"
    )


def test_an_input_stack_config_overrides_is_stack_configs(job: Job) -> None:
    origins = load_script("input_origins").Origins(
        load_script("inputs_config").config_from_inputs([]),
        load_script("stack_file").nest({"gpu-ci:cluster.gpus": "all"}),
    )
    problem = origins.problem("gpu-ci:cluster.gpus", "bad")
    assert [g.name for g in problem.inputs] == ["stack-config"]


def test_a_config_error_is_read_item_by_item() -> None:
    input_origins = load_script("input_origins")
    error = [
        "stack 'gpu-cluster-kind': invalid gpu-ci config (2 problems):",
        "  - gpu-ci:host.gpus: first",
        "    continued",
        "  - gpu-ci:platform.set[1]: second",
        "Nothing was created. Fix each key in Pulumi.gpu-cluster-kind.yaml (or ...) and run again.",
    ]
    assert input_origins.keyed_problems(error) == [
        ("gpu-ci:host.gpus", "first\ncontinued"),
        ("gpu-ci:platform.set[1]", "second"),
    ]
    assert input_origins.keyed_problems(["some other failure"]) is None


def test_an_error_that_is_not_a_config_error_hides_the_stack_file(job: Job) -> None:
    origins = load_script("input_origins").Origins(
        load_script("inputs_config").config_from_inputs([]), {}
    )
    [problem] = origins.problems_in(
        ["cannot read Pulumi.gpu-cluster-kind.yaml: gpu-ci:host.gpus is odd"], "gpu-cluster-kind"
    )
    assert problem.title == "gpu-ci step configure"
    assert problem.text == (
        "the stack the action makes from its inputs does not plan: cannot read the stack file "
        "the action writes: input gpu-count is odd"
    )


def test_the_escapes_are_the_workflow_commands() -> None:
    commands = load_script("workflow_commands")
    assert commands.escape_data("50%\r\na:b,c") == "50%25%0D%0Aa:b,c"
    assert commands.escape_property("50%\r\na:b,c") == "50%25%0D%0Aa%3Ab%2Cc"


# -- the action's own checks of its inputs: all of them, before anything is planned -------
BAD_INPUTS = [
    ({"gpus": "some"}, "gpus", "input gpus 'some': must be all, one-per-gpu or a list"),
    ({"cdi": "yes"}, "cdi", "input cdi 'yes': must be true or false"),
    ({"gpu_count": "0"}, "gpu-count", "input gpu-count '0': must be a positive number"),
    # str.isdigit() takes a superscript two, int() does not: once a traceback
    ({"gpu_count": "²"}, "gpu-count", "input gpu-count '²': must be a positive number"),
    ({"expect_gpus": "²"}, "expect-gpus", "input expect-gpus '²': must be a positive number"),
    (
        {"pulumi_sha256": "abc"},
        "pulumi-sha256",
        "input pulumi-sha256 'abc': must be 64 lowercase hex characters",
    ),
    (
        {"load_images": "ok/image:1\nnot an image"},
        "load-images",
        "input load-images line 2 'not an image': is not an image reference",
    ),
    ({"service": "Kind"}, "service", "input service 'Kind': is not a recipe criterion"),
    (
        {"stack_config": "missing.yaml"},
        "stack-config",
        "input stack-config 'missing.yaml': cannot read it",
    ),
    (
        {"observability": "true", "deploy_platform": "false"},
        "observability%2C deploy-platform",
        "inputs observability 'true', deploy-platform 'false': observability: true watches the "
        "platform's GPUs; it needs deploy-platform: true",
    ),
    (
        {"platform_set": "a:b=c", "deploy_platform": "false"},
        "platform-set%2C deploy-platform",
        "inputs platform-set 'a:b=c', deploy-platform 'false': platform-set overrides",
    ),
    ({"observability": "on"}, "observability", "input observability 'on': must be true or false"),
    (
        {"nvkind_commit_date": "2026-01-10"},
        "nvkind-commit-date",
        "input nvkind-commit-date '2026-01-10': dates nvkind-commit, which is empty",
    ),
]


@pytest.mark.parametrize(("inputs", "title", "cause"), BAD_INPUTS, ids=lambda v: str(v)[:30])
def test_a_bad_input_fails_naming_it(
    job: Job, inputs: dict[str, str], title: str, cause: str
) -> None:
    outcome = job.configure(**inputs)
    assert outcome.code == 1
    assert only_annotation(outcome).startswith(
        f"::error title=gpu-ci input{'s' if '%2C' in title else ''} {title}::{cause}"
    )
    assert not job.planned


def test_every_bad_input_is_told_at_once(job: Job) -> None:
    outcome = job.configure(cdi="yes", gpu_count="0", gpus="x")
    assert outcome.code == 1
    titles = sorted(a.split("::")[1] for a in outcome.annotations)
    assert titles == [
        "error title=gpu-ci input cdi",
        "error title=gpu-ci input gpu-count",
        "error title=gpu-ci input gpus",
    ]
    assert outcome.stderr.splitlines()[-1].endswith("3 problems, each in an annotation above")


@pytest.mark.parametrize(
    ("file", "cause"),
    [
        ("config:\n  gpu-ci:capacity: vm\n", "sets gpu-ci:capacity; the action creates no"),
        ("config:\n  gpu-ci:host: {target: ssh}\n", "sets gpu-ci:host.target; the action"),
        ("config:\n  gpu-ci:host: {privateKey: {secure: v1:abc}}\n", "has a `secure:` value"),
        ("nodes: []\n", "expected a stack file with a `config:` map"),
    ],
    ids=["capacity", "target", "secure", "no-config"],
)
def test_a_stack_config_the_action_cannot_run_is_refused(job: Job, file: str, cause: str) -> None:
    (job.workspace / "bad.yaml").write_text(file)
    outcome = job.configure(stack_config="bad.yaml")
    assert outcome.code == 1
    assert only_annotation(outcome).startswith(
        f"::error title=gpu-ci input stack-config::input stack-config 'bad.yaml': {cause}"
    )


def test_a_credential_in_stack_config_is_told_a_fix_the_action_accepts(job: Job) -> None:
    """The program's fix, `pulumi config set --secret`, writes a `secure:` value, which
    stack-config refuses: the action says what works instead."""
    (job.workspace / "c.yaml").write_text(
        "config:\n  gpu-ci:observability:\n    grafana: {adminPassword: hunter2hunter2}\n"
    )
    annotation = only_annotation(job.configure(stack_config="c.yaml"))
    assert annotation == (
        "::error title=gpu-ci input stack-config::input stack-config 'c.yaml': "
        "gpu-ci:observability.grafana.adminPassword: is a credential, and the action's stack "
        "holds none (its passphrase is made per job, and stack-config refuses `secure:` "
        "values): leave it out of stack-config; a credential goes in a stack of your own "
        "(`pulumi config set --secret`)"
    )
    assert "hunter2" not in annotation


def test_the_configure_step_in_a_job(runner: ActionSandbox) -> None:
    """The smoke test: configure.sh on the virtualenv, as action.yml runs it."""
    assert runner.run("prepare").returncode == 0
    run = runner.run("configure", gpus="one-per-gpu")
    assert run.returncode == 1
    assert [line for line in run.stdout.splitlines() if line.startswith("::")] == [
        "::error title=gpu-ci input gpus::input gpus 'one-per-gpu': one-per-gpu needs the "
        "host's GPU count: set input gpu-count, or list each worker's GPU indexes "
        "(gpus: [[0], [1]])"
    ]
    assert run.stderr.count("one-per-gpu needs") == 0
    assert not (runner.work / "plan.json").exists()


# -- helm/kind-action's inputs (inputs.sh, the first step of every command) ---------------
# helm/kind-action's action.yml (cd7f6ead, v1.12-era): every input it declares.
KIND_ACTION_INPUTS = (
    "version",
    "config",
    "kubeconfig",
    "node_image",
    "cluster_name",
    "wait",
    "verbosity",
    "kubectl_version",
    "registry",
    "registry_image",
    "registry_name",
    "registry_port",
    "registry_enable_delete",
    "install_only",
    "ignore_failed_clean",
)
ALIASES = {"cluster_name": "cluster-name", "node_image": "node-image"}
REFUSED = [name for name in KIND_ACTION_INPUTS if name not in ALIASES]


def kind_action(runner: ActionSandbox, **inputs: str) -> Any:
    for name, value in inputs.items():
        runner.inputs[f"KIND_ACTION_{name.upper()}"] = value
    return runner.run("inputs")


def test_every_kind_action_input_is_declared_and_reaches_the_inputs_step() -> None:
    from tests.workflows.github_tools import load_github_yaml

    action = load_github_yaml(ACTION / "action.yml")
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "resolved")
    assert action["runs"]["steps"][0] is step  # first, for every command
    assert "if" not in step
    for name in KIND_ACTION_INPUTS:
        assert action["inputs"][name]["default"] == ""
        said = "an alias" if name in ALIASES else "refused"
        assert said in action["inputs"][name]["description"], name
        assert step["env"][f"KIND_ACTION_{name.upper()}"] == f"${{{{ inputs.{name} }}}}"


def test_kind_actions_names_are_aliases(runner: ActionSandbox) -> None:
    run = kind_action(runner, cluster_name="ci-gpu", node_image="kindest/node:v1.34.3")
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = runner.step_outputs()
    assert outputs["cluster-name"] == "ci-gpu"
    assert outputs["node-image"] == "kindest/node:v1.34.3"
    assert outputs["aliases"] == "cluster-name=cluster_name node-image=node_image"
    assert "::" not in run.stdout


def test_without_aliases_the_inputs_pass_through(runner: ActionSandbox) -> None:
    run = runner.run("inputs", cluster_name="gpu", node_image="kindest/node:v1.35.0")
    assert run.returncode == 0, run.stdout + run.stderr
    assert runner.step_outputs() == {
        "cluster-name": "gpu",
        "node-image": "kindest/node:v1.35.0",
        "aliases": "",
    }


REFUSED_HINTS = {
    "version": "its version and SHA-256 as gpu-ci:host.versions.kind in a stack-config file",
    "kubectl_version": "as gpu-ci:host.versions.kubectl in a stack-config file",
    "config": "give the workers' GPUs with gpus, the node image with node-image",
    "kubeconfig": "names it in its kubeconfig output and sets KUBECONFIG",
    "wait": "the job's timeout-minutes bounds it",
    "verbosity": "runs kind through nvkind at its default verbosity; drop it",
    "install_only": "always makes the cluster; drop it",
    "ignore_failed_clean": "with command: destroy and if: always(), and continue-on-error: true",
    **dict.fromkeys(
        ("registry", "registry_image", "registry_name", "registry_port", "registry_enable_delete"),
        "runs no local registry: build the job's images into this runner's Docker and list them "
        "in load-images",
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_a_kind_action_input_without_a_counterpart_is_refused_by_name(
    runner: ActionSandbox, name: str
) -> None:
    run = kind_action(runner, **{name: "true"})
    assert run.returncode == 1
    [annotation] = [line for line in run.stdout.splitlines() if line.startswith("::")]
    assert annotation.startswith(
        f"::error title=gpu-ci input {name}::input {name} 'true': helm/kind-action's input, "
        "which this action refuses: "
    )
    assert REFUSED_HINTS[name] in annotation
    assert "cluster-name" not in runner.step_outputs()


def test_a_refusal_says_what_to_use_instead(runner: ActionSandbox) -> None:
    run = kind_action(runner, wait="60s", registry="true", config="kind.yaml")
    assert run.returncode == 1
    annotations = [line for line in run.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 3
    assert "input wait '60s'" in annotations[1] and "drop it" in annotations[1]
    assert "input config 'kind.yaml'" in annotations[0] and "with gpus" in annotations[0]
    assert "list them in load-images" in annotations[2]
    assert run.stderr.endswith("3 problem(s) with the inputs, each in an annotation above\n")


def test_a_kind_action_flag_at_false_is_what_the_action_does(runner: ActionSandbox) -> None:
    run = kind_action(runner, install_only="false", registry="false", ignore_failed_clean="false")
    assert run.returncode == 0, run.stdout
    assert "::" not in run.stdout


def test_an_alias_and_its_input_that_disagree_are_refused(runner: ActionSandbox) -> None:
    runner.inputs["INPUT_CLUSTER_NAME"] = "one"
    run = kind_action(runner, cluster_name="two")
    assert run.returncode == 1
    assert (
        "::error title=gpu-ci input cluster_name::input cluster_name 'two': helm/kind-action's "
        "name for cluster-name, which is 'one': give one of the two"
    ) in run.stdout


def test_a_bad_cluster_name_is_told_by_the_name_it_was_given(runner: ActionSandbox) -> None:
    run = kind_action(runner, cluster_name="Chart_Testing")
    assert run.returncode == 1
    assert (
        "::error title=gpu-ci input cluster_name::input cluster_name 'Chart_Testing': is not a "
        "kind cluster name"
    ) in run.stdout


def test_the_shell_steps_escape_a_value_too(runner: ActionSandbox) -> None:
    run = kind_action(runner, wait="60s\n::error::injected")
    assert run.returncode == 1
    assert "::error title=gpu-ci input wait::input wait '60s%0A::error::injected': " in run.stdout
    assert not [line for line in run.stdout.splitlines() if line.startswith("::error::")]


# -- destroy without a cluster -------------------------------------------------------------
def test_destroy_without_an_up_warns_naming_the_cluster(runner: ActionSandbox) -> None:
    destroy = runner.run("destroy", cluster_name="kind")
    assert destroy.returncode == 0, destroy.stderr
    assert destroy.stdout.startswith(
        "::warning title=gpu-ci step destroy::no cluster 'kind' to destroy: no up of this "
        "action set one up in this job"
    )
    assert [line for line in destroy.stdout.splitlines() if line.startswith("::")] == [
        destroy.stdout.rstrip("\n")
    ]
    assert destroy.calls == []


def test_destroy_after_an_up_that_made_no_cluster_warns_naming_it(runner: ActionSandbox) -> None:
    runner.up_to_install()
    (runner.work / "state").mkdir()
    (runner.work / "passphrase").write_text("stub")
    destroy = runner.run("destroy")
    assert destroy.returncode == 0, destroy.stderr
    assert (
        "::warning title=gpu-ci step destroy::no cluster 'kind' to destroy: this job's up "
        "stopped before it made the cluster"
    ) in destroy.stdout
    assert not [c for c in destroy.calls if " destroy " in c]


# -- the inputs the steps before configure use (issue #41) --------------------------------
def test_the_first_step_takes_every_input_a_step_before_configure_uses() -> None:
    """setup-python, prepare, the virtualenv and its cache run before configure checks the
    inputs: each input one of them reads is checked by the first step instead."""
    from tests.workflows.github_tools import load_github_yaml

    steps = load_github_yaml(ACTION / "action.yml")["runs"]["steps"]
    first = steps[0]
    configure = next(i for i, s in enumerate(steps) if s.get("id") == "configure")
    used = set()
    for step in steps[1:configure]:
        text = json.dumps({k: v for k, v in step.items() if k != "name"})
        used |= set(re.findall(r"inputs\.([a-z0-9_-]+)", text))
    assert used == {"command", "python-version", "cache"}, used
    for name in used:
        variable = "INPUT_" + name.upper().replace("-", "_")
        assert first["env"][variable] == f"${{{{ inputs.{name} }}}}"


@pytest.mark.parametrize(
    ("python", "cache"),
    [("3.11", "true"), ("3.12.4", "false"), ("3.13", "TRUE"), ("3.20", "False")],
)
def test_the_first_step_passes_a_python_and_a_cache_flag(
    runner: ActionSandbox, python: str, cache: str
) -> None:
    run = runner.run("inputs", python_version=python, cache=cache)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "::" not in run.stdout


@pytest.mark.parametrize(
    "python", ["", "3.10", "3", "3.x", "pypy3.10", ">=3.11", "3.11\n3.12", "3.011", "2.7"]
)
def test_a_python_the_program_cannot_run_on_stops_the_first_step(
    runner: ActionSandbox, python: str
) -> None:
    """Empty: setup-python would read the workspace's .python-version, the PR's file."""
    run = runner.run("inputs", python_version=python)
    assert run.returncode == 1
    shown = python.replace("\n", "%0A")
    value = f"'{shown}'" if python else "''"
    assert run.stdout == (
        f"::error title=gpu-ci input python-version::input python-version {value}: must be a "
        "CPython release of 3.11 or newer, as X.Y or X.Y.Z (the program's requires-python), "
        "e.g. 3.11\n"
    )
    assert "cluster-name" not in runner.step_outputs()


def test_a_cache_flag_that_is_no_flag_stops_the_first_step(runner: ActionSandbox) -> None:
    """`inputs.cache == 'true'` would read `yes` as false: the cache off without a word."""
    run = runner.run("inputs", cache="yes", python_version="3.9")
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "::error title=gpu-ci input python-version::input python-version '3.9': must be a "
        "CPython release of 3.11 or newer, as X.Y or X.Y.Z (the program's requires-python), "
        "e.g. 3.11",
        "::error title=gpu-ci input cache::input cache 'yes': must be true (cache the "
        "virtualenv, the CLI, plugins and host tools) or false",
    ]
    assert run.stderr.endswith("2 problem(s) with the inputs, each in an annotation above\n")
