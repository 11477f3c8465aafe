"""The dev stack with each value a host step's parameter model used to refuse late.

Before `stacks.compose.prepare`, these passed config validation and failed with a pydantic
traceback once the parameter model was built: after 27 resources (the GPU VM among them)
had registered. Now every parameter model is built from the validated config before the
first resource, and a refusal is the loader's one message, at the config key it came from.
The last resort in `stacks.program.main` turns any ValidationError left into that message.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pydantic import BaseModel, ValidationError

from components.host.params.by_step import PARAMS_BY_STEP
from components.host.params.runner import GithubRunnerParams
from stacks.config.param_keys import MODEL_KEYS
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO, plan_run

DEV: dict[str, Any] = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())["config"]
HEADER = "stack '{stack}': invalid gpu-ci config (1 problem):\n  - "
FOOTER = (
    "\nNothing was created. Fix each key in Pulumi.{stack}.yaml (or with `pulumi config set "
    "--path`) and run again."
)
LONG_STACK = "d" * 43  # gpu-ci-<43>-gpu-0 is 56 characters: one over


def _plan(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], stack: str = "dev"
) -> tuple[str, list[Registration]]:
    """Plan the dev stack (as `stack`) with `change` applied to its config."""
    config = copy.deepcopy(DEV)
    change(config)
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run(stack, tmp_path, registrations=registered)
    return str(failure.value), registered


def _set(key: str, path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(config: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = config[f"gpu-ci:{key}"]
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value

    return change


def _duplicate_key(config: dict[str, Any]) -> None:
    keys = config["gpu-ci:vm"]["sshAuthorizedKeys"]
    keys.append(keys[0].replace("ci-admin@example", "the-same-key@example"))


LATE = [
    pytest.param(
        _set("runner", "group", "GPUs$(id)"),
        "gpu-ci:runner.group: a runner group name here is 1 to 100 letters",
        id="runner-group-subshell",
    ),
    pytest.param(
        _set("runner", "group", "GPUs\nx"),
        "gpu-ci:runner.group: a runner group name here is 1 to 100 letters",
        id="runner-group-newline",
    ),
    pytest.param(
        _set("runner", "group", "GPU's"),
        "gpu-ci:runner.group: a runner group name here is 1 to 100 letters",
        id="runner-group-quote",
    ),
    pytest.param(
        _set("runner", "labels", ["gpu\n"]),
        "gpu-ci:runner.labels: label 0 ('gpu\\n') may hold only letters, digits",
        id="runner-label-newline",
    ),
    pytest.param(
        _set("runner", "labels", [f"gpu-{i}" for i in range(101)]),
        "gpu-ci:runner.labels: 101 labels: a runner takes 1 to 100 labels",
        id="runner-101-labels",
    ),
    pytest.param(
        _set(
            "host",
            "versions.nvkind",
            {"binaryUrl": "https://x.example/a'b", "binarySha256": "a" * 64},
        ),
        "gpu-ci:host.versions.nvkind.binaryUrl: not an https:// URL without spaces, quotes",
        id="nvkind-binary-url-quote",
    ),
    # A config rule since issue #32 (stacks/config/gpu_layout.py), naming the shape.
    pytest.param(
        _set("cluster", "gpus", [[0], [1]]),
        "gpu-ci:cluster.gpus: worker 1 is given GPU 1, but the host has 1 GPU (indexes 0-0), "
        "from VM.GPU.A10.1 (gpu-ci:vm.shape); use a shape with 2 GPUs",
        id="cluster-gpu-index-over-the-shape",
    ),
    # Refused by a parameter model alone (no config rule): `prepare` is what stops them.
    pytest.param(
        _duplicate_key,
        "gpu-ci:vm.sshAuthorizedKeys: keys[1] is the same key as keys[0]",
        id="ssh-key-twice",
    ),
]


def test_the_dev_stack_itself_registers_its_resources(tmp_path: Path) -> None:
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": DEV}))
    registered: list[Registration] = []
    plan_run("dev", tmp_path, registrations=registered)
    assert len(registered) > 27  # what used to register before the late refusal


@pytest.mark.parametrize(("change", "fragment"), LATE)
def test_a_late_failing_value_registers_nothing(
    change: Callable[[dict[str, Any]], None], fragment: str, tmp_path: Path
) -> None:
    message, registered = _plan(tmp_path, change)
    assert registered == [], [r.urn for r in registered]
    assert message.startswith(HEADER.format(stack="dev") + fragment), message
    assert message.endswith(FOOTER.format(stack="dev")), message
    assert "Traceback" not in message and "validation error for" not in message


def test_a_stack_name_too_long_for_the_runner_name_registers_nothing(tmp_path: Path) -> None:
    message, registered = _plan(tmp_path, lambda config: None, stack=LONG_STACK)
    assert registered == []
    assert message == (
        HEADER.format(stack=LONG_STACK)
        + f"gpu-ci:runner: runner name 'gpu-ci-{LONG_STACK}-gpu-0' (56 characters) is not 1 "
        "to 55 letters, digits, '.', '_' or '-' starting with a letter or digit (GitHub "
        "allows 64, and an ephemeral runner appends -<8 hex> per job); runners are named "
        "gpu-ci-<stack>-gpu-N after the Pulumi project and stack: use a stack name of at "
        "most 42 characters" + FOOTER.format(stack=LONG_STACK)
    )


def test_every_problem_of_the_prepare_phase_comes_in_one_message(tmp_path: Path) -> None:
    def change(config: dict[str, Any]) -> None:
        _duplicate_key(config)
        _set("platform", "set", ["gpu-operator:devicePlugin.confg.name=x"])(config)
        _set("host", "versions.nvkind", {"binaryUrl": "https://x/'", "binarySha256": "a" * 64})(
            config
        )

    message, registered = _plan(tmp_path, change)
    assert registered == []
    assert message.startswith("stack 'dev': invalid gpu-ci config (3 problems):\n")
    keys = [line.split(": ")[0] for line in message.splitlines() if line.startswith("  - ")]
    assert keys == [
        "  - gpu-ci:host.versions.nvkind.binaryUrl",
        "  - gpu-ci:platform.set[0]",
        "  - gpu-ci:vm.sshAuthorizedKeys",
    ]


def runner_error() -> ValidationError:
    """The runner step's model refusing `runner.group: a'b` (also used by param_keys tests)."""
    try:
        GithubRunnerParams.from_pins(
            github_url="https://github.com/kubeflow",
            app_id=1,
            installation_id=1,
            runner_name="ok",
            runner_labels=("gpu",),
            runner_group="a'b",
        )
    except ValidationError as err:
        return err
    raise AssertionError("the runner group was accepted")


class _Other(BaseModel):
    size: int


def _other_error() -> ValidationError:
    try:
        _Other.model_validate({"size": "big"})
    except ValidationError as err:
        return err
    raise AssertionError("accepted")


@pytest.mark.parametrize(
    ("error", "problem"),
    [
        pytest.param(
            runner_error,
            "  - gpu-ci:runner.group: a runner group name here is 1 to 100 letters",
            id="a-step-model",
        ),
        pytest.param(
            _other_error,
            "  - gpu-ci: _Other.size: Input should be a valid integer",
            id="any-other-model",
        ),
    ],
)
def test_a_validation_error_after_prepare_is_still_one_message(
    error: Callable[[], ValidationError],
    problem: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last resort: a parameter model `prepare` missed fails at its key, not with a
    traceback, and the message does not claim that nothing was created."""

    def late(*args: object, **kwargs: object) -> None:
        raise error()

    monkeypatch.setattr("stacks.layers.host.GithubRunner", late)
    message, registered = _plan(tmp_path, lambda config: None)
    assert registered  # it did come late
    assert message.startswith("stack 'dev': invalid gpu-ci config (1 problem):\n" + problem)
    assert message.endswith(
        "\nResources registered before this was found may exist. Fix each key in "
        "Pulumi.dev.yaml (or with `pulumi config set --path`) and run again."
    )
    assert "Traceback" not in message and "validation error for" not in message


def test_every_step_model_names_the_config_part_it_is_built_from() -> None:
    assert {model.__name__ for model in PARAMS_BY_STEP.values()} <= set(MODEL_KEYS)
    assert all(keys.default.startswith("gpu-ci:") for keys in MODEL_KEYS.values())


# -- issue 29, class 5: values that failed late (or not at all), refused at their key -----

ARC: dict[str, Any] = yaml.safe_load((REPO / "Pulumi.arc.yaml").read_text())["config"]
"""The ARC example stack, its credentials `secure:` as in the file."""


def _plan_arc(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> str:
    """Plan the ARC example stack with `change` applied: its one-problem message."""
    config = copy.deepcopy(ARC)
    change(config)
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.arc.yaml").write_text(yaml.safe_dump({"config": config}))
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("arc", tmp_path, registrations=registered)
    message = str(failure.value)
    assert registered == []
    assert message.startswith(HEADER.format(stack="arc")), message
    assert message.endswith(FOOTER.format(stack="arc")), message
    return message.removeprefix(HEADER.format(stack="arc")).removesuffix(FOOTER.format(stack="arc"))


def _arc(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(config: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = config["gpu-ci:arc"]
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value

    return change


GITHUB_NAME = "is not a GitHub {} name: "
REPO_RULE = "1 to 100 letters, digits, '-', '_' or '.', and not '.' or '..' (reserved)"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        pytest.param(
            "https://github.com/kubeflow/..",
            f"'..' {GITHUB_NAME.format('repository')}{REPO_RULE}",
            id="repo-dot-dot",
        ),
        pytest.param(
            "https://github.com/kubeflow/.",
            f"'.' {GITHUB_NAME.format('repository')}{REPO_RULE}",
            id="repo-dot",
        ),
        pytest.param(
            "https://github.com/-kubeflow",
            f"'-kubeflow' {GITHUB_NAME.format('organization')}1 to 39 letters, digits or "
            "'-', not starting with '-'",
            id="org-leading-hyphen",
        ),
        pytest.param(
            "https://github.com/" + "k" * 40,
            f"'{'k' * 40}' {GITHUB_NAME.format('organization')}1 to 39",
            id="org-40-characters",
        ),
        pytest.param(
            "https://github.com/enterprises/..",
            f"'..' {GITHUB_NAME.format('enterprise')}1 to 100 letters, digits, '-', '_' or "
            "'.', starting with a letter or digit",
            id="enterprise-dot-dot",
        ),
    ],
)
def test_a_github_name_github_refuses_is_refused_at_the_url(
    url: str, problem: str, tmp_path: Path
) -> None:
    message, registered = _plan(tmp_path, _set("runner", "url", url))
    assert registered == []
    assert message.startswith(HEADER.format(stack="dev") + f"gpu-ci:runner.url: {problem}")
    # ARC's githubConfigUrl is the same type, refused the same way.
    arc = _plan_arc(tmp_path, _arc("scaleSets.2.githubConfigUrl", url))
    assert arc.startswith(f"gpu-ci:arc.scaleSets[2].githubConfigUrl: {problem}"), arc


@pytest.mark.parametrize(
    "url",
    ["https://github.com/a", "https://github.com/kubeflow/.github", "https://github.com/o/..x"],
)
def test_the_names_github_takes_still_pass(url: str) -> None:
    from components.host.config.runner import RunnerConfig

    app = {"appId": 1, "installationId": 1, "privateKey": "offline-placeholder:k"}
    assert RunnerConfig.model_validate({"url": url, "githubApp": app}).url == url


@pytest.mark.parametrize("group", ["GPUs$(id)", "GPUs\nx", "GPU's", " GPUs", "GPUs;reboot"])
def test_an_arc_runner_group_has_the_host_runners_rule(group: str, tmp_path: Path) -> None:
    arc = _plan_arc(tmp_path, _arc("scaleSets.0.runnerGroup", group))
    host, _ = _plan(tmp_path, _set("runner", "group", group))
    rule = "a runner group name here is 1 to 100 letters, digits, spaces, '.', '_' or '-'"
    assert arc.startswith(f"gpu-ci:arc.scaleSets[0].runnerGroup: {rule}"), arc
    assert host.startswith(HEADER.format(stack="dev") + f"gpu-ci:runner.group: {rule}")
    # One rule: the same words after the key.
    assert arc.split(": ", 1)[1].split(" [given")[0] in host


OKE_DOCS = (
    "OKE takes pod and service blocks apart from the VCN and its subnets (the defaults, "
    "10.244.0.0/16 and 10.96.0.0/16, are apart from the default VCN 10.0.0.0/16)"
)


@pytest.mark.parametrize(
    ("pods", "services", "problem"),
    [
        pytest.param(
            "10.244.0.0/16",
            "10.244.128.0/17",
            "gpu-ci:arc.cluster.oke.servicesCidr: 10.244.128.0/17 overlaps podsCidr "
            "10.244.0.0/16: a Service's cluster IP would also be a pod's address; give pods "
            "and services separate blocks (the defaults: 10.244.0.0/16 and 10.96.0.0/16)",
            id="services-inside-pods",
        ),
        pytest.param(
            "10.0.0.0/8",
            "10.96.0.0/16",
            "gpu-ci:arc.cluster.oke.servicesCidr: 10.96.0.0/16 overlaps podsCidr 10.0.0.0/8",
            id="pods-around-services",
        ),
        pytest.param(
            "10.0.128.0/17",
            "10.96.0.0/16",
            "gpu-ci:arc.cluster.oke.podsCidr: overlaps gpu-ci:network.vcnCidr 10.0.0.0/16, "
            f"the VCN of the OKE cluster's nodes and load balancers; {OKE_DOCS}",
            id="pods-in-the-vcn",
        ),
        pytest.param(
            "10.244.0.0/16",
            "10.0.1.0/24",
            "gpu-ci:arc.cluster.oke.servicesCidr: overlaps gpu-ci:network.vcnCidr "
            f"10.0.0.0/16, the VCN of the OKE cluster's nodes and load balancers; {OKE_DOCS}",
            id="services-are-the-subnet",
        ),
    ],
)
def test_oke_pod_and_service_blocks_overlapping_are_refused(
    pods: str, services: str, problem: str, tmp_path: Path
) -> None:
    def change(config: dict[str, Any]) -> None:
        config["gpu-ci:arc"]["cluster"]["oke"].update(podsCidr=pods, servicesCidr=services)

    assert _plan_arc(tmp_path, change).startswith(problem)


def test_oke_blocks_apart_from_an_existing_subnet_are_not_judged(tmp_path: Path) -> None:
    """An existing subnet's VCN is not known here: only pods against services is checked."""
    from stacks.config import load_config, raw_from_flat
    from stacks.offline.stack_file.read import read_stack_file

    config = copy.deepcopy(ARC)
    config["gpu-ci:network"]["existingSubnetId"] = "ocid1.subnet.oc1..aaaaaaaaexisting"
    config["gpu-ci:arc"]["cluster"]["oke"]["podsCidr"] = "10.0.0.0/16"
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.arc.yaml").write_text(yaml.safe_dump({"config": config}))
    stack = read_stack_file(tmp_path, "arc")
    loaded = load_config(raw_from_flat(stack.config, stack.secret_keys), "arc")
    assert loaded.arc is not None and loaded.arc.cluster.oke is not None
    assert loaded.arc.cluster.oke.podsCidr == "10.0.0.0/16"


@pytest.mark.parametrize(
    "namespace", ["GPU-Operator", "gpu_operator", "-ops", "ops-", "a" * 64, "ops\nx", "o$(id)"]
)
def test_a_catalog_namespace_that_is_not_a_dns_label_is_refused(
    namespace: str, tmp_path: Path
) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "overlays").mkdir(parents=True)
    (catalog / "registry.yaml").write_text(
        yaml.safe_dump(
            {"apiVersion": "aicr.run/v1alpha2", "kind": "ComponentRegistry", "components": []}
        )
    )
    overlay = {
        "apiVersion": "aicr.run/v1alpha2",
        "kind": "RecipeMetadata",
        "metadata": {"name": "x"},
        "spec": {"componentRefs": [{"name": "gpu-operator", "namespace": namespace}]},
    }
    (catalog / "overlays" / "x.yaml").write_text(yaml.safe_dump(overlay))
    message, registered = _plan(tmp_path, _set("platform", "catalogs", [str(catalog)]))
    assert registered == []
    assert "overlays/x.yaml: spec.componentRefs[0].namespace: " in message, message
    assert "is not a Kubernetes namespace name (an RFC 1123 DNS label): 1 to 63" in message
    assert "Traceback" not in message


def test_a_dns_label_namespace_and_an_inherited_one_pass() -> None:
    from recipes.model.overlays import ComponentRef

    assert ComponentRef(name="x", namespace="a" * 63).namespace == "a" * 63
    assert ComponentRef(name="x", namespace="gpu-operator-2").namespace == "gpu-operator-2"
    assert ComponentRef(name="x").namespace == ""


@pytest.mark.parametrize("version", ["$(id)", "4;reboot", "stable\nx", "..", "", "a b", "`id`"])
def test_an_esc_version_with_shell_characters_is_refused(version: str, tmp_path: Path) -> None:
    from core.errors import GpuCiError

    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    name = f"gpu-ci/dev@{version}"
    stack = {"environment": [name], "config": {"gpu-ci:owner": "team"}}
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack))
    with pytest.raises(GpuCiError) as failure:
        plan_run("dev", tmp_path)
    assert str(failure.value) == (
        f"Pulumi.dev.yaml: {name!r}: the version after '@' is a revision number or a tag "
        "(letters, digits, '-', '_' and '.'), like gpu-ci/dev@4 or gpu-ci/dev@stable"
    )


@pytest.mark.parametrize("version", ["4", "stable", "v1.2.1", "latest"])
def test_an_esc_revision_or_tag_is_read(version: str, tmp_path: Path) -> None:
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "esc" / "gpu-ci").mkdir(parents=True)
    (tmp_path / "esc" / "gpu-ci" / "dev.yaml").write_text(
        "values:\n  pulumiConfig:\n    oci:region: us-phoenix-1\n"
    )
    stack = {"environment": [f"gpu-ci/dev@{version}"], "config": {"gpu-ci:owner": "team"}}
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack))
    from stacks.offline.stack_file.read import read_stack_file

    assert read_stack_file(tmp_path, "dev").config["oci:region"] == "us-phoenix-1"


STACK_RULE = (
    "is not one the Pulumi CLI takes: 1 to 100 letters, digits, '_', '.' or '-'; name the "
    "stack (and its Pulumi.<stack>.yaml) so"
)


@pytest.mark.parametrize("stack", ["a b", "dev$(id)", "dev\n", "é", "x" * 101, "a/b", ""])
def test_a_stack_name_the_cli_refuses_is_refused_offline(stack: str, tmp_path: Path) -> None:
    from core.errors import GpuCiError

    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shown = repr(stack if len(stack) <= 60 else stack[:60] + "...")
    with pytest.raises(GpuCiError) as failure:
        plan_run(stack, tmp_path)
    assert str(failure.value) == f"stack name {shown} {STACK_RULE}"


@pytest.mark.parametrize(
    "project", ["gpu ci", "gpu-ci\nruncmd: [reboot]", "1gpu", "-gpu", "p$(id)", "x" * 101, ""]
)
def test_a_project_name_the_cli_refuses_is_refused_offline(project: str, tmp_path: Path) -> None:
    from core.errors import GpuCiError

    pulumi_yaml = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump({**pulumi_yaml, "name": project}))
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": DEV}))
    shown = repr(project if len(project) <= 60 else project[:60] + "...")
    with pytest.raises(GpuCiError) as failure:
        plan_run("dev", tmp_path)
    assert str(failure.value) == (
        f"Pulumi.yaml: the project name {shown} is not one the Pulumi CLI takes: 1 to 100 "
        "letters, digits, '_', '.' or '-', not starting with a digit or '-'; rename it"
    )


@pytest.mark.parametrize(("project", "stack"), [("_p.x-1", "9.a_b-C"), ("." * 3, "..")])
def test_the_names_the_cli_takes_plan(project: str, stack: str, tmp_path: Path) -> None:
    pulumi_yaml = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump({**pulumi_yaml, "name": project}))
    (tmp_path / f"Pulumi.{stack}.yaml").write_text(
        yaml.safe_dump({"config": {"gpu-ci:capacity": "none", "gpu-ci:host": {"target": "local"}}})
    )
    assert plan_run(stack, tmp_path).registrations


def test_plan_all_reports_a_stack_file_the_cli_would_not_name(tmp_path: Path) -> None:
    import subprocess
    import sys

    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.a$(id).yaml").write_text(yaml.safe_dump({"config": DEV}))
    done = subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "a$(id)", "--project-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: stack name 'a$(id)' {STACK_RULE}\n"
