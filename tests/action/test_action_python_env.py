"""prepare and python-env: the cached virtualenv's key, its creation, the program's link."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.components.host.sandbox import Run, Sandbox

from .action_sandbox import ACTION, REPO, ActionSandbox

BASE_PYTHON = """#!/bin/bash
# A stand-in interpreter: `-m venv DIR` makes DIR/bin/python, whose pip records.
printf '%s\\n' "python $*" >>"$SANDBOX/calls.log"
[ "$1 $2" = "-m venv" ] || exit 2
mkdir -p "$3/bin"
cat >"$3/bin/python" <<'EOF'
#!/bin/bash
printf '%s\\n' "venv-python $*" >>"$SANDBOX/calls.log"
[ ! -f "$SANDBOX/state/pip-fail" ]
EOF
chmod +x "$3/bin/python"
"""


def program_copy(runner: ActionSandbox) -> Path:
    """A program checkout of its own (prepare.sh finds the program from its own path)."""
    root = runner.sandbox.base / "program"
    shutil.copytree(ACTION, root / ".github" / "actions" / "gpu-cluster")
    for name in ("Pulumi.yaml", "requirements.txt", "components/host/scripts/common.sh"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, root / name)
    return root


def run(runner: ActionSandbox, program: Path, step: str, base_python: Path) -> Run:
    env = runner.env()
    env.pop("GPU_CI_PROJECT")
    env["GPU_CI_BASE_PYTHON"] = str(base_python)
    script = program / ".github" / "actions" / "gpu-cluster" / "scripts" / f"{step}.sh"
    return runner.sandbox.run_file(script, env=env)


def setup(runner: ActionSandbox) -> tuple[Path, Path]:
    program = program_copy(runner)
    base_python = runner.sandbox.base / "python3.11"
    base_python.write_text(BASE_PYTHON)
    base_python.chmod(0o755)
    shutil.rmtree(runner.cache / "venv")  # nothing restored: a first run
    return program, base_python


def test_the_first_run_makes_the_virtualenv_and_links_it(runner: ActionSandbox) -> None:
    program, python = setup(runner)
    prepare = run(runner, program, "prepare", python)
    assert prepare.returncode == 0, prepare.stderr
    key = runner.step_outputs()["python-key"]
    assert key.startswith("gpu-ci-venv-v1-linux-") and "-py3.11.7-" in key
    env = runner.work.joinpath("env").read_text()
    assert f"GPU_CI_PROGRAM={program}\n" in env and f"GPU_CI_PROJECT={program}\n" in env

    first = run(runner, program, "python-env", python)
    assert first.returncode == 0, first.stderr
    venv = runner.cache / "venv"
    assert first.calls == [
        f"python -m venv {venv}",
        "venv-python -m pip install --quiet --disable-pip-version-check --no-input "
        f"-r {venv}/requirements.txt",
    ]
    # the lock less pulumi-oci's entry (its name, hashes and `# via` lines), nothing else
    installed = (venv / "requirements.txt").read_text().splitlines()
    lock = (program / "requirements.txt").read_text().splitlines()
    start = next(i for i, line in enumerate(lock) if line.startswith("pulumi-oci=="))
    end = next(i for i in range(start + 1, len(lock)) if not lock[i][:1].isspace())
    assert installed == lock[:start] + lock[end:]
    assert end - start >= 3 and not any(line.startswith("pulumi-oci") for line in installed)
    assert (program / ".venv").resolve() == venv.resolve()  # what Pulumi.yaml names
    assert (venv / ".gpu-ci-key").read_text() == key

    second = run(runner, program, "python-env", python)  # restored by actions/cache
    assert second.returncode == 0 and second.calls == []
    assert "is current" in second.stderr


def test_new_requirements_make_a_new_key_and_virtualenv(runner: ActionSandbox) -> None:
    program, python = setup(runner)
    assert run(runner, program, "prepare", python).returncode == 0
    assert run(runner, program, "python-env", python).returncode == 0
    old = runner.step_outputs()["python-key"]
    with (program / "requirements.txt").open("a") as out:
        out.write("extra==1.0\n")
    assert run(runner, program, "prepare", python).returncode == 0
    new = [
        line.split("=", 1)[1]
        for line in runner.github_file("output").splitlines()
        if line.startswith("python-key=")
    ][-1]
    assert new != old
    again = run(runner, program, "python-env", python)
    assert again.returncode == 0
    assert again.calls[0].startswith("python -m venv")


def test_a_failed_pip_install_names_the_step(runner: ActionSandbox) -> None:
    program, python = setup(runner)
    assert run(runner, program, "prepare", python).returncode == 0
    runner.sandbox.put("pip-fail")
    done = run(runner, program, "python-env", python)
    assert done.returncode == 1
    cause = "pip install -r requirements.txt failed (its output is above)"
    assert f"gpu-ci step python-env: {cause}" in done.stderr
    assert f"::error title=gpu-ci step python-env::{cause}" in done.stdout
    assert not (runner.cache / "venv" / ".gpu-ci-key").exists()  # not cached as good


def test_a_virtualenv_of_the_checkout_is_not_replaced(runner: ActionSandbox) -> None:
    program, python = setup(runner)
    (program / ".venv").mkdir()
    assert run(runner, program, "prepare", python).returncode == 0
    done = run(runner, program, "python-env", python)
    assert done.returncode == 1
    assert "is not the action's virtualenv; remove it" in done.stderr


_WITHOUT_OCI = """
import runpy, sys
sys.modules["pulumi_oci"] = None  # as in the action's virtualenv: not installed
sys.argv = ["stacks", *sys.argv[1:]]
runpy.run_module("stacks", run_name="__main__")
"""


def test_the_actions_stack_plans_without_pulumi_oci(tmp_path_factory: Any) -> None:
    """What python-env leaves out is never imported by the stack the action writes."""
    runner = ActionSandbox(Sandbox(tmp_path_factory.mktemp("no-oci")))
    for step in ("prepare", "configure"):
        assert runner.run(step).returncode == 0, step
    project = ["--project-dir", str(runner.project)]
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_OCI, "plan", "gpu-cluster-kind", "--quiet", *project],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gpu-ci/gpu-cluster-kind: ")
