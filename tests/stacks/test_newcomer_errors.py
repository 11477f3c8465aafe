"""A newcomer's first hour: a stack file that would plan "0 resources" (and delete all on
`pulumi up`) is refused naming the file and what is missing; the recipe's problems come
in the one config error, counted, at their keys; a wrong folder or stack name says so.

Each case runs `python -m stacks plan STACK --project-dir DIR`, as a newcomer types it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pulumi
import pytest

from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO
from stacks.program import main

FOOTER = (
    "Nothing was created. Fix each key in Pulumi.{stack}.yaml (or with `pulumi config set "
    "--path`) and run again."
)
NOTHING = (
    "so this stack would create nothing, and `pulumi up` on a deployed stack would delete "
    "every resource; set gpu-ci:capacity ('vm' or 'arc'), gpu-ci:host or gpu-ci:platform "
    "(Pulumi.workstation.yaml is the smallest stack)"
)
NO_GPU_CI_KEY = f"  - gpu-ci: no gpu-ci:* key is set, {NOTHING}"


def plan(stack: str, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", stack, "--project-dir", str(root), "--quiet"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def project(root: Path, stacks: dict[str, str]) -> Path:
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    for name, text in stacks.items():
        (root / f"Pulumi.{name}.yaml").write_text(text)
    return root


def refused(root: Path, stack: str = "dev") -> str:
    """The one error `plan` exits 2 with (stdout empty, no traceback)."""
    done = plan(stack, root)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def config_error(stack: str, *problems: str) -> str:
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    header = f"error: stack {stack!r}: invalid gpu-ci config ({count}):"
    return "\n".join([header, *problems, FOOTER.format(stack=stack), ""])


def dev_with(*replacements: tuple[str, str]) -> str:
    text = (REPO / "Pulumi.dev.yaml").read_text()
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


# -- stack files that hold no settings -------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "",
            "Pulumi.dev.yaml: no `config:` section (the file is empty); the stack's settings "
            "go under config:",
            id="empty-file",
        ),
        pytest.param(
            "# the dev stack\n# (its settings were lost)\n",
            "Pulumi.dev.yaml: no `config:` section (the file holds only comments); the "
            "stack's settings go under config:",
            id="comments-only",
        ),
        pytest.param(
            "config:\n",
            "Pulumi.dev.yaml: config: is empty: a gpu-ci stack sets at least one of "
            "gpu-ci:capacity ('vm' or 'arc'), gpu-ci:host or gpu-ci:platform",
            id="config-with-nothing-under-it",
        ),
        pytest.param(
            "config: {}\n",
            "Pulumi.dev.yaml: config: is empty: a gpu-ci stack sets at least one of "
            "gpu-ci:capacity ('vm' or 'arc'), gpu-ci:host or gpu-ci:platform",
            id="config-empty-mapping",
        ),
        pytest.param(
            "configs:\n  gpu-ci:capacity: none\n  gpu-ci:host: {target: local}\n",
            "Pulumi.dev.yaml: no `config:` section (found: configs; did you mean config?); "
            "the stack's settings go under config:",
            id="typo-config",
        ),
        pytest.param(
            "settings:\n  gpu-ci:host: {target: local}\n",
            "Pulumi.dev.yaml: no `config:` section (found: settings); the stack's settings go "
            "under config:",
            id="other-top-level-key",
        ),
        pytest.param(
            "enviroment: [gpu-ci/dev]\nconfig:\n  gpu-ci:host: {target: local}\n",
            "Pulumi.dev.yaml: unknown top-level key 'enviroment' (did you mean 'environment'?); "
            "a stack file holds config, environment, secretsprovider, encryptedkey, "
            "encryptionsalt",
            id="typo-environment",
        ),
        pytest.param(
            "- gpu-ci:capacity: none\n",
            "Pulumi.dev.yaml: the file is a list, not a mapping; the stack's settings go under "
            "config:",
            id="a-list",
        ),
    ],
)
def test_a_stack_file_without_settings_is_refused(tmp_path: Path, text: str, message: str) -> None:
    assert refused(project(tmp_path, {"dev": text})) == f"error: {message}\n"


def test_a_config_without_a_gpu_ci_key_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, {"dev": "config:\n  oci:region: us-ashburn-1\n"})
    assert refused(root) == config_error("dev", NO_GPU_CI_KEY)


@pytest.mark.parametrize(
    "text", ["environment: []\n", "environment: []\nconfig:\n", "environment: []\nconfig: {}\n"]
)
def test_environments_that_give_no_gpu_ci_key_are_refused(tmp_path: Path, text: str) -> None:
    """With `environment:` the config may come from ESC alone; none given is refused."""
    assert refused(project(tmp_path, {"dev": text})) == config_error("dev", NO_GPU_CI_KEY)


def test_a_config_without_a_layer_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, {"dev": "config:\n  gpu-ci:capacity: none\n  gpu-ci:owner: me\n"})
    assert refused(root) == config_error(
        "dev",
        "  - gpu-ci: no layer is set (gpu-ci:capacity is 'none', and there is no gpu-ci:host "
        f"or gpu-ci:platform), {NOTHING}",
    )


def test_a_program_run_without_a_gpu_ci_key_fails_as_the_plan_does() -> None:
    """Under the Pulumi CLI (runtime config, no stack file read by us): a lost config is
    the same one error, not a plan that deletes every resource."""
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        run_program(
            main,
            project="gpu-ci",
            stack="dev",
            config={"oci:region": "us-ashburn-1"},
            registrations=registered,
        )
    assert f"error: {failure.value}\n" == config_error("dev", NO_GPU_CI_KEY)
    assert registered == []


def test_an_anchor_holding_top_level_key_is_still_read(tmp_path: Path) -> None:
    """Only misspelt top-level keys are refused: the CLI ignores the others too."""
    text = (
        "defaults: &host\n  target: local\nconfig:\n  gpu-ci:host:\n    <<: *host\n"
        "    dockerUser: ci\n"
    )
    done = plan("dev", project(tmp_path, {"dev": text}))
    assert (done.returncode, done.stdout) == (0, "gpu-ci/dev: 8 resources (offline plan)\n")


# -- recipe problems, in the one config error ------------------------------------------------
def test_recipe_and_config_problems_are_one_error(tmp_path: Path) -> None:
    text = dev_with(
        ("gpu-ci:owner: kubeflow-trainer-ci", 'gpu-ci:owner: "kubeflow trainer"'),
        ("    set: []", '    set: ["gpu-opertor:dcgmExporter.enabled=false"]'),
    )
    message = refused(project(tmp_path, {"dev": text}))
    assert "(2 problems)" in message
    assert "  - gpu-ci:owner: String should match pattern" in message
    assert "  - gpu-ci:platform.set[0]: platform override 'gpu-opertor'" in message
    assert "Nothing was created." in message
    assert message == config_error(
        "dev",
        "  - gpu-ci:owner: String should match pattern '^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$' "
        "[given: 'kubeflow trainer']",
        "  - gpu-ci:platform.set[0]: platform override 'gpu-opertor': component is not in the "
        "recipe kind-a10/kind-a10-training-kubeflow (did you mean 'gpu-operator'?)",
    )


def test_what_is_known_of_the_recipe_comes_with_an_invalid_config(tmp_path: Path) -> None:
    """The VM shape gives the accelerator: with the shape wrong no recipe resolves (the
    `set` entry cannot be checked), but the service is known to be unsupported."""
    text = dev_with(
        ("shape: VM.GPU.A10.1", "shape: VM.GPU.A1O.1"),
        ("    service: kind", "    service: eks"),
        ("    set: []", '    set: ["gpu-opertor:dcgmExporter.enabled=false"]'),
    )
    message = refused(project(tmp_path, {"dev": text}))
    assert "(2 problems)" in message and "Nothing was created." in message
    assert (
        "\n  - gpu-ci:platform.service: no overlay in the catalog supports it; valid values: "
        "kind, oke (or any) [given: 'eks']\n" in message
    )
    assert "\n  - gpu-ci:vm.shape: unknown GPU shape (did you mean 'VM.GPU.A10.1'?)" in message
    assert "gpu-opertor" not in message


def test_recipe_and_parameter_problems_are_one_error(tmp_path: Path) -> None:
    """A valid config whose recipe and runner parameters are refused by `prepare`: an
    service AICR knows but no overlay of the catalog has (AICR would resolve its bare base),
    a platform neither knows, and a runner group the runner step refuses."""
    text = dev_with(
        ("    service: kind", "    service: eks"),
        ("    platform: kubeflow", "    platform: kubeflw"),
        ("    group: GPUs", "    group: GPUs$(id)"),
    )
    message = refused(project(tmp_path, {"dev": text}))
    assert message.startswith("error: stack 'dev': invalid gpu-ci config (3 problems):\n")
    assert message.endswith(f"\n{FOOTER.format(stack='dev')}\n")
    problems = [line.split(":", 2)[:2] for line in message.splitlines()[1:-1]]
    assert problems == [
        ["  - gpu-ci", "platform.platform"],
        ["  - gpu-ci", "platform.service"],
        ["  - gpu-ci", "runner.group"],
    ]


# -- a wrong folder, a wrong stack name -----------------------------------------------------
def test_a_folder_without_stack_files_says_so(tmp_path: Path) -> None:
    assert refused(project(tmp_path, {})) == (
        f"error: no stack 'dev': Pulumi.dev.yaml does not exist (no Pulumi.<stack>.yaml "
        f"files in {tmp_path})\n"
    )


def test_a_cluster_stack_that_does_not_exist_names_its_key(tmp_path: Path) -> None:
    apps = (REPO / "Pulumi.apps-dev.yaml").read_text()
    text = apps.replace("clusterStack: organization/gpu-ci/gpu-dev", "clusterStack: gpu-dve")
    assert text != apps
    gpu_dev = (REPO / "Pulumi.gpu-dev.yaml").read_text()
    root = project(tmp_path, {"apps-dev": text, "gpu-dev": gpu_dev})
    assert refused(root, "apps-dev") == (
        "error: Pulumi.apps-dev.yaml: gpu-ci:platform.clusterStack names stack 'gpu-dve', "
        "which has no Pulumi.gpu-dve.yaml here (stacks here: apps-dev, gpu-dev); did you "
        "mean 'gpu-dev'?\n"
    )
