"""The configure step under hostile inputs (issue #29, items 2 and 3): `stack-config` read
only inside the workspace and as carefully as a stack file, YAML-valued inputs bounded,
and nothing it prints (its own lines, the offline plan's) read as a workflow command.

configure.py runs in this process (`job`, configure_in_process.py).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deadlines import deadline

from .action_sandbox import REPO
from .configure_in_process import Job, Outcome, load_script
from .runner_commands import file_entries, process

SECRET = "TOP-SECRET-LINE"
NOT_THE_WORKSPACE = (
    "is outside the workspace ({workspace}) once its symbolic links are followed; the "
    "action reads stack-config only from the repository the job checked out: give the path "
    "of a stack file in it"
)


def one_error(outcome: Outcome, title: str = "gpu-ci input stack-config") -> str:
    """The one thing the runner carries out of a refused configure: an error annotation
    (stdout), with nothing from stderr; its message, as the runner shows it."""
    assert outcome.code == 1, outcome.printed
    processed = process(outcome.stdout)
    assert processed.stopped is None
    [error] = processed.commands
    assert (error.name, error.properties) == ("error", {"title": title}), error
    assert process(outcome.stderr).commands == []
    return error.data


def secret_file(folder: Path) -> Path:
    """A file outside the workspace whose content must never reach the log: YAML that
    PyYAML refuses with the line shown (as `not YAML (...)` once printed it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "secret.yaml"
    path.write_text(f"config:\n  gpu-ci:x: [{SECRET}\n")
    return path


# -- stack-config: only inside the workspace ----------------------------------------------
@pytest.mark.parametrize("how", ["absolute", "relative", "symlink", "symlinked-folder"])
def test_a_stack_config_outside_the_workspace_is_refused_unread(job: Job, how: str) -> None:
    outside = secret_file(job.workspace.parent / "elsewhere")
    given = {
        "absolute": str(outside),
        "relative": "../elsewhere/secret.yaml",
        "symlink": "ci/gpu.yaml",
        "symlinked-folder": "linked/secret.yaml",
    }[how]
    (job.workspace / "ci").mkdir()
    (job.workspace / "ci" / "gpu.yaml").symlink_to(outside)
    (job.workspace / "linked").symlink_to(outside.parent)
    outcome = job.configure(stack_config=given)
    message = one_error(outcome)
    assert message == f"input stack-config '{given}': " + NOT_THE_WORKSPACE.format(
        workspace=job.workspace
    )
    assert SECRET not in outcome.printed
    assert str(outside.parent) not in outcome.printed or how == "absolute"
    assert not (job.work / "stack.json").exists()


def test_a_symlink_inside_the_workspace_is_followed(job: Job) -> None:
    (job.workspace / "real.yaml").write_text("config:\n  gpu-ci:cluster: {workerLabels: {a: b}}\n")
    (job.workspace / "gpu.yaml").symlink_to(job.workspace / "real.yaml")
    outcome = job.configure(stack_config="gpu.yaml")
    assert outcome.code == 0, outcome.printed
    assert '"workerLabels": {\n' in (job.work / "stack.json").read_text()


@pytest.mark.parametrize(
    ("make", "cause"),
    [
        ("fifo", "is not a regular file: give the path of a stack file"),
        ("folder", "is not a regular file: give the path of a stack file"),
        (
            "large",
            "is 1048577 bytes, more than 1048576 (1 MiB): a stack-config holds a few keys of "
            "the stack",
        ),
        ("loop", "cannot read it (a loop of symbolic links)"),
        ("missing", "cannot read it (No such file or directory)"),
    ],
    ids=["fifo", "folder", "large", "loop", "missing"],
)
def test_what_is_not_a_stack_file_is_refused_before_it_is_opened(
    job: Job, make: str, cause: str
) -> None:
    path = job.workspace / "gpu.yaml"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "folder":
        path.mkdir()
    elif make == "large":
        path.write_text("config: {}\n" + "#" * (1024 * 1024 - 11) + "\n")  # 1 MiB + 1
    elif make == "loop":
        path.symlink_to(job.workspace / "other.yaml")
        (job.workspace / "other.yaml").symlink_to(path)
    with deadline(20):
        outcome = job.configure(stack_config="gpu.yaml")
    assert one_error(outcome).startswith(f"input stack-config 'gpu.yaml': {cause}")


def test_a_stack_config_of_exactly_the_bound_is_read(job: Job) -> None:
    text = "nodes: []\n"
    (job.workspace / "big.yaml").write_text(text + "#" * (1024 * 1024 - len(text) - 1) + "\n")
    outcome = job.configure(stack_config="big.yaml")
    assert one_error(outcome) == (
        "input stack-config 'big.yaml': expected a stack file with a `config:` map"
    )


def test_without_a_workspace_no_stack_config_is_read(job: Job) -> None:
    job.monkeypatch.delenv("GITHUB_WORKSPACE")
    outcome = job.configure(stack_config="/etc/hostname")
    assert one_error(outcome) == (
        "input stack-config '/etc/hostname': GITHUB_WORKSPACE is not set, and stack-config is "
        "read only inside the workspace"
    )


# -- stack-config and inputs: bounded -----------------------------------------------------
def alias_bomb(levels: int = 9) -> str:
    """A flow list whose aliases expand to 10**levels values."""
    items = ["&l0 [" + ", ".join(["x"] * 10) + "]"]
    for level in range(1, levels):
        items.append(f"&l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    return "[" + ", ".join(items) + "]"


def test_an_alias_bomb_in_stack_config_is_refused_at_once(job: Job) -> None:
    (job.workspace / "bomb.yaml").write_text(
        f"config:\n  gpu-ci:cluster:\n    workerLabels: {{a: {alias_bomb()}}}\n"
    )
    with deadline(20):
        outcome = job.configure(stack_config="bomb.yaml")
    message = one_error(outcome)
    assert message.startswith("input stack-config 'bomb.yaml': bomb.yaml: aliases expand ")
    assert "write the values out instead of nesting aliases" in message
    assert not (job.work / "stack.json").exists()


def test_deep_nesting_in_stack_config_is_refused(job: Job) -> None:
    deep = "[" * 5000 + "]" * 5000
    (job.workspace / "deep.yaml").write_text(f"config:\n  gpu-ci:cluster: {{a: {deep}}}\n")
    with deadline(20):
        outcome = job.configure(stack_config="deep.yaml")
    message = one_error(outcome)
    assert message.startswith(
        "input stack-config 'deep.yaml': deep.yaml: values nest more than 100 levels deep"
    )
    assert "RecursionError" not in outcome.printed


@pytest.mark.parametrize(
    ("value", "cause"),
    [
        ("[" * 5000 + "]" * 5000, "gpus: values nest more than 8 levels deep (line 1)"),
        (alias_bomb(), "gpus: aliases expand the value at line 1 past 10000 values"),
        ("[[0], [1]", "gpus: not valid YAML"),
    ],
    ids=["deep", "alias-bomb", "not-yaml"],
)
def test_a_gpus_input_past_its_bounds_is_one_problem(job: Job, value: str, cause: str) -> None:
    with deadline(20):
        outcome = job.configure(gpus=value)
    message = one_error(outcome, "gpu-ci input gpus")
    shown = value if len(value) <= 120 else f"{value[:120]}... ({len(value)} characters)"
    assert message.startswith(
        f"input gpus '{shown}': must be all, one-per-gpu or a list of GPU indexes per worker "
        f"such as [[0], [1]] ({cause}"
    )
    assert not (job.work / "stack.json").exists()


# -- nothing printed is a workflow command --------------------------------------------------
@pytest.mark.parametrize(
    "value",
    ["kind\n::set-output name=kubeconfig::/tmp/evil", "kind ##[add-mask]x", "Kind\r::error::x"],
    ids=["line-break", "v1-in-line", "carriage-return"],
)
def test_a_hostile_cluster_name_is_one_problem(job: Job, value: str) -> None:
    outcome = job.configure(cluster_name=value)
    assert one_error(outcome, "gpu-ci input cluster-name") == (
        f"input cluster-name '{value}': is not a kind cluster name (lowercase letters, digits "
        "and '-', at most 32)"
    )
    assert not job.planned


FAKE_PLAN = """
import json, sys
out = sys.argv[sys.argv.index("--json") + 1]
json.dump({"resources": [], "outputs": {}}, open(out, "w"))
print("::set-output name=kubeconfig::/tmp/evil")
print("note ##[add-path]/tmp/evil", file=sys.stderr)
print("::error::from the plan's stderr", file=sys.stderr)
"""


def test_the_plans_own_output_is_printed_with_commands_off(
    job: Job, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan repeats values of the inputs and stack-config: shown as text, between
    stop-commands and its random resume token, never run."""
    offline_plan = load_script("offline_plan")
    monkeypatch.setattr(offline_plan, "PLAN", (sys.executable, "-c", FAKE_PLAN))
    origins = load_script("input_origins").Origins({}, {})
    outcome = job.run(
        lambda: offline_plan.plan(job.project, job.project, "s", tmp_path / "p.json", origins)
    )
    assert outcome.code == 0
    processed = process(outcome.stdout)
    assert processed.commands == [] and processed.stopped is None
    lines = outcome.stdout.splitlines()
    assert lines[0].startswith("::stop-commands::gpu-ci-") and len(lines[0]) == 56
    assert lines[1:4] == [
        "::set-output name=kubeconfig::/tmp/evil",
        "note ##[add-path]/tmp/evil",
        "::error::from the plan's stderr",
    ]
    assert lines[4] == f"::{lines[0].removeprefix('::stop-commands::')}::"
    assert outcome.stderr == ""


# -- workflow_commands: the printers ------------------------------------------------------
@pytest.fixture
def commands() -> Any:
    return load_script("workflow_commands")


def test_the_escapes_are_githubs(commands: Any) -> None:
    """@actions/core command.ts (escapeData, escapeProperty); `##[` broken in log lines."""
    assert commands.escape_data("50%\r\na:b,c") == "50%25%0D%0Aa:b,c"
    assert commands.escape_property("50%\r\na:b,c") == "50%25%0D%0Aa%3Ab%2Cc"
    assert commands.escape_log("a ##[x]%\n##[y") == "a ##%5Bx]%25%0A##%5By"


def test_a_log_line_and_die_print_one_line_each(
    commands: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    commands.log("a\n::set-output name=x::y ##[add-mask]z")
    with pytest.raises(SystemExit) as stop:
        commands.die("cause\nline two", "up")
    assert stop.value.code == 1
    out = capsys.readouterr()
    assert out.err == (
        "gpu-ci step configure: a%0A::set-output name=x::y ##%5Badd-mask]z\n"
        "gpu-ci step up: cause%0Aline two\n"
    )
    assert out.out == "::error title=gpu-ci step up::cause%0Aline two\n"


def test_a_multi_line_output_is_one_heredoc_entry(
    commands: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    commands.write_output("one", "plain=value")
    commands.write_output("two", "a\nb=c\r")
    commands.write_output("three", "d\re")
    text = target.read_bytes().decode()
    assert file_entries(text) == [("one", "plain=value"), ("two", "a\nb=c\r"), ("three", "d\re")]
    first, second = [line for line in text.splitlines() if "<<" in line]
    assert first.startswith("two<<ghadelimiter_") and len(first) == len("two<<ghadelimiter_") + 32
    assert first.partition("<<")[2] != second.partition("<<")[2]  # random each time
    monkeypatch.delenv("GITHUB_OUTPUT")
    commands.write_output("four", "x")  # no file outside a job: nothing written
    assert target.read_bytes().decode() == text


def test_a_value_holding_its_delimiter_stops_the_step(
    commands: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(commands.secrets, "token_hex", lambda n: "f" * (2 * n))
    with pytest.raises(SystemExit):
        commands.file_command("key", f"a\nghadelimiter_{'f' * 32}\nb")
    assert "output key holds its own random delimiter" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        commands.untrusted(f"x ::gpu-ci-{'f' * 32}:: y")
    assert capsys.readouterr().out == (
        "::error title=gpu-ci step configure::output to print holds the random token that "
        "would end it; run the step again\n"
    )
    assert commands.untrusted("") is None
    assert capsys.readouterr().out == ""


def test_untrusted_text_is_closed_by_its_own_token(
    commands: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    commands.untrusted("a\n::error::b")
    out = capsys.readouterr().out
    stop, a, b, resume, end = out.split("\n")
    token = stop.removeprefix("::stop-commands::")
    assert (a, b, resume, end) == ("a", "::error::b", f"::{token}::", "")
    assert token.startswith("gpu-ci-") and len(token) == 39
    stream = io.StringIO()
    commands.untrusted("c\n", stream)
    lines = stream.getvalue().split("\n")  # to the stream given, the text ending its line
    assert lines[1:] == ["c", f"::{lines[0].removeprefix('::stop-commands::')}::", ""]
    assert capsys.readouterr().out == ""


def test_the_reader_checks_the_workspace_again_on_the_file_it_opens(tmp_path: Path) -> None:
    """Past workspace_file's check, the program's reader refuses on its own a file outside
    the workspace (one swapped in between the two, say); the action's own stack file, which
    it reads back between phases, is read in its own folder."""
    careful_yaml = load_script("careful_yaml")
    outside = tmp_path / "elsewhere" / "stack.yaml"
    outside.parent.mkdir()
    outside.write_text("config:\n  gpu-ci:a: b\n")
    (tmp_path / "workspace").mkdir()
    with pytest.raises(careful_yaml.GpuCiError) as refused:
        careful_yaml.read_stack_file(outside, tmp_path / "workspace")
    assert str(refused.value) == (
        "stack.yaml: a symlink that leads outside GITHUB_WORKSPACE; put the file itself in "
        "GITHUB_WORKSPACE instead of a link to a file elsewhere"
    )
    assert careful_yaml.read_stack_file(outside) == {"config": {"gpu-ci:a": "b"}}


def printed_by(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """What `code` (with `commands`, workflow_commands as the tests load it) prints in a
    process of its own, stdout and stderr into one pipe, as the runner reads a step."""
    script = (
        "from tests.action.configure_in_process import load_script\n"
        "commands = load_script('workflow_commands')\n" + code
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        check=False,
    )


def test_an_annotation_comes_before_the_log_lines_after_it(
    commands: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """stdout is block-buffered in a pipe, stderr line-buffered: unflushed, the problems'
    annotations would reach the log after the line that counts them `above`."""
    commands.annotate("error", "first")
    assert capsys.readouterr().out == "::error title=gpu-ci step configure::first\n"
    done = printed_by("commands.annotate('error', 'first')\ncommands.log('second')\n")
    assert done.stdout.splitlines() == [
        "::error title=gpu-ci step configure::first",
        "gpu-ci step configure: second",
    ], done.stdout


def test_outputs_are_utf_8_whatever_the_locale(
    commands: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GPU's or an image's name need not be ASCII; a runner's locale need not be UTF-8."""
    target = tmp_path / "output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    commands.write_output("name", "é")
    assert target.read_bytes() == "name=é\n".encode()
    target.unlink()
    done = printed_by(
        "commands.write_output('name', 'NVIDIA \\u00e9')\n",
        GITHUB_OUTPUT=str(target),
        LC_ALL="C",
        LANG="C",
        PYTHONUTF8="0",
        PYTHONCOERCECLOCALE="0",  # the C locale as it is: ASCII (PEP 538 would coerce it)
    )
    assert done.returncode == 0, done.stdout
    assert target.read_bytes() == "name=NVIDIA é\n".encode()
