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

from components.host.params import PARAMS_BY_STEP
from components.host.runner_params import GithubRunnerParams
from stacks.config.param_keys import MODEL_KEYS
from stacks.offline.plan import REPO, plan_run
from stacks.offline.records import Registration

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
    # Refused by a parameter model alone (no config rule): `prepare` is what stops them.
    pytest.param(
        _duplicate_key,
        "gpu-ci:vm.sshAuthorizedKeys: keys[1] is the same key as keys[0]",
        id="ssh-key-twice",
    ),
    pytest.param(
        _set("cluster", "gpus", [[0], [1]]),
        "gpu-ci:cluster: gpus: worker 1 is given GPU 1, but the host has 1 GPU(s) (indexes "
        "0-0); fix the index lists in `gpus`",
        id="cluster-gpu-index-over-the-shape",
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
        _set("cluster", "gpus", [[0], [1]])(config)
        _set("host", "versions.nvkind", {"binaryUrl": "https://x/'", "binarySha256": "a" * 64})(
            config
        )

    message, registered = _plan(tmp_path, change)
    assert registered == []
    assert message.startswith("stack 'dev': invalid gpu-ci config (3 problems):\n")
    keys = [line.split(": ")[0] for line in message.splitlines() if line.startswith("  - ")]
    assert keys == [
        "  - gpu-ci:cluster",
        "  - gpu-ci:host.versions.nvkind.binaryUrl",
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
