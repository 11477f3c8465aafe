"""`stacks diff --state EXPORT_DIR HEAD_DIR`: every stack's export against its plan from
`plan --all`, producers first; a stack on one side only is all creates or all deletes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from stacks.offline.cli import main
from stacks.offline.state.synthetic import export_of


@pytest.fixture
def sides(planned: Path, tmp_path: Path) -> tuple[Path, Path]:
    exports, head = tmp_path / "exports", tmp_path / "head"
    shutil.copytree(planned, head)
    exports.mkdir()
    for path in sorted(planned.glob("*.json")):
        (exports / path.name).write_text(json.dumps(export_of(json.loads(path.read_text()))))
    return exports, head


def test_every_stack_against_its_own_export_has_no_changes(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = sides
    out = exports.parent / "diff.json"
    assert main(["diff", "--state", str(exports), str(head), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    firsts = [line.split(":")[0] for line in text.splitlines() if "(deployed state)" in line]
    assert firsts == [
        f"gpu-ci/{s} (deployed state) → gpu-ci/{s}"
        for s in ["arc", "dev", "gpu-dev", "apps-dev", "multi-gpu", "workstation"]
    ]  # apps-dev reads gpu-dev: after it
    data = json.loads(out.read_text())
    assert data["errors"] == {} and all(s["changes"] == [] for s in data["stacks"].values())


def test_a_stack_on_one_side_only(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = sides
    (exports / "workstation.json").unlink()
    (head / "arc.json").unlink()
    code = main(["diff", "--state", str(exports), str(head)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert (
        "arc: Exported, not planned: `pulumi up` of this program would delete everything in it."
    ) in lines
    assert (
        "workstation: Planned, no export: not deployed (or not exported); everything in it is "
        "created."
    ) in lines
    arc = next(line for line in lines if line.startswith("gpu-ci/arc (deployed state)"))
    assert re.search(r": 0 to create, 0 to update, 0 to replace, [1-9][0-9]* to delete, 0 un", arc)
    station = next(ln for ln in lines if ln.startswith("gpu-ci/workstation (deployed state)"))
    assert re.search(
        r": [1-9][0-9]* to create, 0 to update, 0 to replace, 0 to delete, 0 un", station
    )


def test_bad_input_is_one_line_per_stack(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = sides
    (exports / "dev.json").write_text("{")
    (head / "gpu-dev.json").unlink()
    (head / "gpu-dev.error").write_text("gpu-ci:host.user: not a user name\n")
    assert main(["diff", "--state", str(exports), str(head)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"error: dev: {exports / 'dev.json'}: not JSON (Expecting property name enclosed in "
        "double quotes at line 1, column 2); write it with `pulumi stack export --stack STACK "
        "--file FILE`",
        "error: gpu-dev: does not plan on head: gpu-ci:host.user: not a user name",
    ]


def test_an_export_and_a_dir_do_not_mix(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = sides
    assert main(["diff", "--state", str(exports / "dev.json"), str(head)]) == 2
    assert capsys.readouterr().err == (
        f"error: give an export and a plan, or a dir of each: {exports / 'dev.json'}, {head}\n"
    )


def test_plan_export_writes_the_state_its_up_would_leave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan STACK --export FILE`: the synthetic export, byte for byte what `export_of` makes of
    the plan, and one `diff --state` reads as that same stack with no changes."""
    export, head = tmp_path / "gpu-dev-state.json", tmp_path / "head.json"
    assert main(["plan", "gpu-dev", "--quiet", "--export", str(export), "--json", str(head)]) == 0
    assert json.loads(export.read_text()) == export_of(json.loads(head.read_text()))
    capsys.readouterr()
    assert main(["diff", "--state", str(export), str(head)]) == 0
    assert "gpu-ci/gpu-dev (deployed state) → gpu-ci/gpu-dev: no changes" in capsys.readouterr().out


def test_plan_export_is_per_stack(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["plan", "--all", "--export", "x.json"])
    assert stopped.value.code == 2
    assert "--all: --json, --mermaid and --export are per stack; give --json-dir DIR" in (
        capsys.readouterr().err
    )
