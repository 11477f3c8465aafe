"""The CLIs a newcomer types: output files that cannot be written are one line, no
traceback; `--quiet` says how many resources; `tasks.py` explains itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stacks.offline.plan import REPO
from tests.stacks.stack_helpers import cli


@pytest.mark.parametrize("flag", ["--json", "--mermaid"])
def test_an_output_file_in_a_missing_folder(flag: str, tmp_path: Path) -> None:
    target = tmp_path / "out" / "plan.file"
    done = cli("plan", "workstation", "--quiet", flag, target)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {flag} {target}: cannot write it (No such file or directory); "
        f"create {target.parent} first\n"
    )


@pytest.mark.parametrize("flag", ["--json", "--mermaid"])
def test_an_output_file_that_is_a_folder(flag: str, tmp_path: Path) -> None:
    done = cli("plan", "workstation", "--quiet", flag, tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {flag} {tmp_path}: cannot write it (Is a directory); "
        "give a file name, not a folder\n"
    )


def test_the_diff_json_file_too(tmp_path: Path) -> None:
    snap = tmp_path / "plan.json"
    assert cli("plan", "workstation", "--quiet", "--json", snap).returncode == 0
    done = cli("diff", snap, snap, "--json", tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: --json {tmp_path}: cannot write it (Is a directory)")
    assert "Traceback" not in done.stderr


def test_quiet_prints_the_count_only() -> None:
    done = cli("plan", "workstation", "--quiet")
    assert (done.returncode, done.stdout) == (0, "gpu-ci/workstation: 8 resources (offline plan)\n")


def test_help_keeps_its_usage_lines_apart() -> None:
    done = cli("--help")
    assert done.returncode == 0
    assert (
        "\n  python -m stacks plan STACK [--json FILE] [--mermaid FILE] [--export FILE] [--quiet]\n"
        in done.stdout
    )
    assert (
        "\n  python -m stacks diff BASE.json HEAD.json [--markdown] [--json FILE]\n" in done.stdout
    )


def tasks(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "tasks.py", *args], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_tasks_help_and_per_task_help_run_nothing() -> None:
    top = tasks("--help")
    assert top.returncode == 0 and "python3 tasks.py plan [STACK] [ARGS]" in top.stdout
    bench = tasks("bench", "--help")
    assert bench.returncode == 0
    assert bench.stdout.startswith("python3 tasks.py bench [PLAN_WALL ARGS]\n")
    unknown = tasks("deploy")
    assert unknown.returncode == 1 and unknown.stderr.startswith("unknown task 'deploy'\n")


def test_tasks_plans_any_stack() -> None:
    done = tasks("plan", "workstation", "--quiet")
    assert done.returncode == 0, done.stderr
    # (a first run after a requirements change also reports setting up .venv before it)
    assert done.stdout.endswith("gpu-ci/workstation: 8 resources (offline plan)\n")
