"""`python -m stacks plan --all`: every stack in one process, each snapshot the bytes of
`plan STACK --json FILE`, a referenced stack planned once and first, and a stack that does
not plan one line (the others still written)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import stacks.offline.plan as plan_module
from stacks.offline.cli import main
from stacks.offline.engine import mocks
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO, PlanCache, ReferenceFailedError, plan_run
from tests.stacks.stack_helpers import cli

EXAMPLES = ["dev", "gpu-dev", "apps-dev", "arc", "multi-gpu", "workstation"]
"""In the order `--all` plans them: gpu-dev (read by apps-dev) first, the rest by name."""
ORDER = ["gpu-dev", "apps-dev", "arc", "dev", "multi-gpu", "workstation"]
PER_STACK = "--all: --json, --mermaid and --export are per stack; give --json-dir DIR"


Edit = Callable[[dict[str, Any]], None]


def project(tmp_path: Path, edit: dict[str, Edit] | None = None) -> Path:
    """A copy of the example project; `edit` changes a stack file's whole document."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(REPO / "Pulumi.yaml", root)
    for path in REPO.glob("Pulumi.*.yaml"):
        shutil.copy(path, root)
    for stack, change in (edit or {}).items():
        path = root / f"Pulumi.{stack}.yaml"
        document = yaml.safe_load(path.read_text())
        change(document)
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    return root


def single(stack: str, root: Path, tmp_path: Path) -> bytes:
    """What `python -m stacks plan STACK --json FILE` writes for the stack alone."""
    out = tmp_path / f"single-{stack}.json"
    assert main(["plan", stack, "--quiet", "--json", str(out), "--project-dir", str(root)]) == 0
    return out.read_bytes()


def misspelt_config(document: dict[str, Any]) -> None:
    document["configs"] = {}


def test_every_example_stack_in_one_process_is_the_bytes_of_planning_it_alone(
    tmp_path: Path,
) -> None:
    out = tmp_path / "all"
    done = cli("plan", "--all", "--json-dir", out)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"gpu-ci/{s}" for s in ORDER]
    assert all(line.endswith("resources (offline plan)") for line in lines)
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{s}.json" for s in EXAMPLES)
    for stack in EXAMPLES:
        assert (out / f"{stack}.json").read_bytes() == single(stack, REPO, tmp_path), stack


def test_a_referenced_stack_is_planned_once_before_the_stack_that_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    planned: list[str] = []
    real = mocks.run_program

    def counting(*args: Any, **kwargs: Any) -> ProgramRun:
        planned.append(kwargs["stack"])
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_module, "run_program", counting)
    assert main(["plan", "--all", "--json-dir", str(tmp_path)]) == 0
    assert planned == ORDER
    out = capsys.readouterr().out.splitlines()
    counts = {s: len(json.loads((tmp_path / f"{s}.json").read_text())["resources"]) for s in ORDER}
    assert out[:2] == [
        f"gpu-ci/gpu-dev: {counts['gpu-dev']} resources (offline plan)",
        f"gpu-ci/apps-dev: {counts['apps-dev']} resources (offline plan)",
    ]


def test_the_cache_hands_the_same_run_to_every_reader() -> None:
    cache: PlanCache = {}
    apps = plan_run("apps-dev", REPO, cache=cache)
    assert list(cache) == ["gpu-dev", "apps-dev"]
    assert plan_run("gpu-dev", REPO, cache=cache) is cache["gpu-dev"]
    assert plan_run("apps-dev", REPO, cache=cache) is apps


def test_a_stack_that_does_not_plan_is_one_line_and_the_others_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, {"workstation": misspelt_config})
    out = tmp_path / "all"
    assert main(["plan", "--all", "--json-dir", str(out), "--project-dir", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "error: workstation: Pulumi.workstation.yaml: unknown top-level key 'configs' (did you "
        "mean 'config'?); a stack file holds config, environment, secretsprovider, encryptedkey, "
        "encryptionsalt\n"
    )
    assert len(captured.out.splitlines()) == len(EXAMPLES) - 1
    assert (out / "workstation.error").read_text() == captured.err.split(": ", 2)[2]
    assert not (out / "workstation.json").exists()
    for stack in ["dev", "gpu-dev", "apps-dev", "arc"]:
        assert (out / f"{stack}.json").read_bytes() == single(stack, root, tmp_path), stack


def test_a_stack_whose_referenced_stack_fails_fails_because_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, {"gpu-dev": misspelt_config})
    out = tmp_path / "all"
    assert main(["plan", "--all", "--json-dir", str(out), "--project-dir", str(root)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[1] for line in err] == [" gpu-dev", " apps-dev"]
    assert err[0].startswith("error: gpu-dev: Pulumi.gpu-dev.yaml: unknown top-level key")
    assert err[1] == (
        "error: apps-dev: Pulumi.apps-dev.yaml: gpu-ci:platform.clusterStack names stack "
        "'organization/gpu-ci/gpu-dev', which did not plan"
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "apps-dev.error",
        "arc.json",
        "dev.json",
        "gpu-dev.error",
        "multi-gpu.json",
        "workstation.json",
    ]
    # Alone, the reading stack fails with the referenced stack's own error, as before.
    with pytest.raises(Exception, match="unknown top-level key 'configs'") as raised:
        plan_run("apps-dev", root)
    assert not isinstance(raised.value, ReferenceFailedError)


def test_a_stack_that_reads_itself_is_a_cycle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def itself(document: dict[str, Any]) -> None:
        document["config"]["gpu-ci:platform"]["clusterStack"] = "organization/gpu-ci/apps-dev"

    root = project(tmp_path, {"apps-dev": itself})
    assert main(["plan", "--all", "--project-dir", str(root)]) == 2
    assert capsys.readouterr().err == (
        "error: apps-dev: stack references form a cycle: apps-dev -> apps-dev\n"
    )


def test_an_unexpected_failure_of_one_stack_is_one_line_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = mocks.run_program

    def broken(*args: Any, **kwargs: Any) -> ProgramRun:
        if kwargs["stack"] == "arc":
            raise RuntimeError("a bug")
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_module, "run_program", broken)
    assert main(["plan", "--all", "--json-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "error: arc: RuntimeError: a bug (`python -m stacks plan arc` shows the traceback)\n"
    )
    assert len(list(tmp_path.glob("*.json"))) == len(EXAMPLES) - 1


def test_what_an_earlier_run_left_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "all"
    out.mkdir()
    (out / "dev.error").write_text("stale\n")
    (out / "workstation.json").write_text("stale\n")
    root = project(tmp_path, {"workstation": misspelt_config})
    assert main(["plan", "--all", "--json-dir", str(out), "--project-dir", str(root)]) == 2
    assert not (out / "dev.error").exists() and (out / "dev.json").is_file()
    assert not (out / "workstation.json").exists() and (out / "workstation.error").is_file()


def test_a_project_dir_without_stacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--all", "--project-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"error: no Pulumi.<stack>.yaml files in {tmp_path}\n"


def test_a_json_dir_that_cannot_be_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["plan", "--all", "--json-dir", str(blocker / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"error: --json-dir {blocker / 'out'}: cannot create")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a STACK, or --all for every Pulumi.*.yaml stack"),
        (["dev", "--all"], "give a STACK or --all, not both: 'dev' and --all"),
        (["--all", "--json", "x.json"], PER_STACK),
        (["--all", "--mermaid", "x.mmd"], PER_STACK),
        (["--all", "--export", "x.json"], PER_STACK),
        (["dev", "--json-dir", "out"], "--json-dir goes with --all"),
    ],
)
def test_stack_or_all(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["plan", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m stacks plan")
    assert f"python -m stacks plan: error: {message}" in err


def test_a_stack_name_or_reason_cannot_be_a_workflow_command_in_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runner reads `::command::` at a line's start and `##[command]` anywhere in one
    (actions/runner ActionCommand.cs): a file name with a line break, or a reason holding
    `##[`, must stay on the one line `error: STACK: ...` (core.workflow_text.escape_log)."""
    root = project(tmp_path)
    hostile = "x\n::warning::forged ##[add-mask]y"
    (root / f"Pulumi.{hostile}.yaml").write_text("config:\n  gpu-ci:owner: a\n")
    out = tmp_path / "all"
    assert main(["plan", "--all", "--json-dir", str(out), "--project-dir", str(root)]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert [line for line in lines if "forged" in line] == [
        line for line in lines if line.startswith("error: x%0A::warning::forged ##%5Badd-mask]y: ")
    ]
    assert len([line for line in lines if "forged" in line]) == 1
    assert not any(line.startswith("::") or "##[" in line for line in lines)
