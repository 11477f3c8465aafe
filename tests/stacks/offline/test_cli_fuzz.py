"""No input file or flag combination makes `python -m stacks` or `python -m recipes` print a
traceback: random argv lists, run in-process through each CLI's `main(argv)`, exit 0, 1 or
2 (argparse's own exit 2 included) with no "Traceback" on stderr, and raise nothing else.

The argv lists mix known and unknown subcommands and flags, missing and extra arguments,
and paths to a missing file, a folder, a non-snapshot JSON, a binary file, an empty file, a
truncated snapshot and a real one. Only `workstation` (8 resources) is ever planned, so
the budget stays a few seconds.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipes.cli import main as recipes_main
from stacks.offline.cli import main as stacks_main
from stacks.offline.plan import REPO

EXAMPLES = 50
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# Stacks that plan for longer than `workstation`: a random name must not pick one.
BIG_STACKS = {p.name.split(".")[1] for p in REPO.glob("Pulumi.*.yaml")} - {"workstation"}
# What argv can hold on Linux: no NUL, no lone surrogates.
WORD = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
    max_size=12,
).filter(lambda word: word not in BIG_STACKS)


@dataclass(frozen=True)
class Files:
    """Paths the drawn argv lists point at (under one folder; the CLIs run inside it)."""

    root: Path
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    dirs: tuple[str, ...]


def _files(root: Path) -> Files:
    folder = root / "folder"
    folder.mkdir()
    snapshot = root / "snapshot.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert stacks_main(["plan", "workstation", "--quiet", "--json", str(snapshot)]) == 0
    text = snapshot.read_text()
    inputs = {
        "other.json": '{"hello": "world"}\n',
        "list.json": "[1, 2, 3]\n",
        "null.json": "null\n",
        "resources.json": '{"resources": 5, "stack": [], "project": null}\n',
        "empty.json": "",
        "truncated.json": text[: len(text) // 2],
        "not-json.yaml": "a: [1, 2\n",
    }
    for name, body in inputs.items():
        (root / name).write_text(body)
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    # A project folder whose workstation stack file is broken, and one that is empty.
    project = root / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (project / "Pulumi.workstation.yaml").write_bytes(b"config:\n  gpu-ci:host: \xff\xfe[\n")
    # Recipe catalogs: one of junk files, one empty.
    junk = root / "catalog-junk"
    (junk / "overlays").mkdir(parents=True)
    (junk / "overlays" / "a.yaml").write_bytes(bytes(range(256)))
    (junk / "overlays" / "b.yaml").write_text("- just\n- a list\n")
    (junk / "registry.yaml").write_text("components: 3\n")
    (root / "catalog-empty").mkdir()
    return Files(
        root=root,
        inputs=(
            str(snapshot),
            *(str(root / name) for name in inputs),
            str(root / "binary.bin"),
            str(folder),
            str(root / "missing" / "plan.json"),
            "",
        ),
        outputs=(
            str(root / "out.txt"),
            str(folder),
            str(root / "missing" / "out.txt"),
            "",
        ),
        dirs=(
            str(project),
            str(folder),
            str(junk),
            str(root / "catalog-empty"),
            str(root / "missing"),
            str(root / "binary.bin"),
            str(REPO / "recipes" / "catalog"),
        ),
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return _files(tmp_path_factory.mktemp("cli-fuzz"))


def _flat(parts: Sequence[Sequence[str]]) -> list[str]:
    return [token for part in parts for token in part]


def _argv(
    command: st.SearchStrategy[str],
    positionals: st.SearchStrategy[str],
    flags: st.SearchStrategy[list[str]],
) -> st.SearchStrategy[list[str]]:
    """COMMAND, 0-3 positionals and 0-4 flags (each one or two tokens), sometimes shuffled."""
    tokens = st.tuples(
        command.map(lambda c: [c]),
        st.lists(positionals, max_size=3),
        st.lists(flags, max_size=4).map(_flat),
    ).map(_flat)
    return st.one_of(tokens, tokens.flatmap(st.permutations).map(list))


def _pair(flag: str, value: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return value.map(lambda v: [flag, v])


def stacks_argvs(files: Files) -> dict[str, st.SearchStrategy[list[str]]]:
    """`plan` and `diff` as documented (with any inputs and outputs), and mangled argv."""
    inputs = st.sampled_from(files.inputs)
    outputs = st.sampled_from(files.outputs)
    unknown = st.sampled_from([["--frobnicate"], ["-x"], ["--quiet=yes"], ["--json"], ["--"]])
    plan_flags = st.one_of(
        st.just(["--quiet"]),
        _pair("--json", outputs),
        _pair("--mermaid", outputs),
        _pair("--project-dir", st.sampled_from(files.dirs)),
    )
    diff_flags = st.one_of(st.just(["--markdown"]), _pair("--json", outputs))
    stack = st.sampled_from(["workstation", "workstation", "nope", "../workstation", "Pulumi"])
    return {
        "plan": st.tuples(
            st.just(["plan"]),
            stack.map(lambda name: [name]),
            st.lists(plan_flags, max_size=3).map(_flat),
        ).map(_flat),
        "diff": st.tuples(
            st.just(["diff"]),
            st.lists(inputs, min_size=2, max_size=2),
            st.lists(diff_flags, max_size=2).map(_flat),
        ).map(_flat),
        "mangled": st.one_of(
            _argv(st.just("plan"), stack | WORD, plan_flags | unknown | WORD.map(lambda w: [w])),
            _argv(st.just("diff"), inputs | WORD, diff_flags | unknown | WORD.map(lambda w: [w])),
            _argv(st.sampled_from(["", "plans", "--help", "-h"]) | WORD, inputs, diff_flags),
            st.just([]),
        ),
    }


def recipes_argvs(files: Files) -> dict[str, st.SearchStrategy[list[str]]]:
    """`recipe` and `query` with catalog criteria values, and with any values and flags."""
    values = {  # the bundled catalog's, a different case, AICR's, another field's, empty
        "service": ["kind", "oke", "any", "KIND", "eks", "a10", ""],
        "accelerator": ["a10", "any", "A10", "h100", "kind"],
        "os": ["any", "ubuntu", ""],
        "intent": ["training", "any", "inference"],
        "platform": ["kubeflow", "any", "dynamo"],
    }
    selector = st.sampled_from(
        [
            "deploymentOrder",
            "constraints",
            "components.gpu-operator.values.driver.enabled",
            "components.gpu-operator.values",
            "components..values",
            "components.nope.values.x",
            "",
        ]
    )
    known = st.one_of(
        *(_pair(f"--{name}", st.sampled_from(choices)) for name, choices in values.items()),
        _pair("--nodes", st.sampled_from(["0", "1", "-1", "2.5", "", "9" * 30])),
        _pair("--data", st.sampled_from(files.dirs)),
        _pair("-o", st.sampled_from(files.outputs)),
    )
    anything = st.one_of(
        known,
        _pair("--selector", selector),
        *(
            _pair(f"--{name}", WORD)
            for name in ("service", "accelerator", "os", "intent", "platform", "nodes", "data")
        ),
        _pair("--selector", WORD),
        st.sampled_from([["--frobnicate"], ["--nodes"], ["--selector"], ["-o"], ["--"]]),
        WORD.map(lambda w: [w]),
    )
    command = st.sampled_from(["recipe", "query"])
    return {
        "criteria": st.tuples(
            st.just(["recipe"]) | _pair("--selector", selector).map(lambda s: ["query", *s]),
            st.sampled_from(  # the bundled catalog's overlays: these resolve
                [
                    ["--service", "kind", "--accelerator", "a10"],
                    ["--service", "oke", "--accelerator", "a10"],
                    ["--service", "kind", "--accelerator", "a10", "--intent", "training"],
                    ["--service", "kind", "--accelerator", "a10", "--platform", "kubeflow"],
                    [],
                ]
            ),
            st.lists(known, max_size=3).map(_flat),
        ).map(_flat),
        "mangled": st.one_of(
            _argv(command, WORD, anything),
            _argv(st.sampled_from(["", "recipes", "--help", "-h"]) | WORD, WORD, anything),
            st.just([]),
        ),
    }


def _run(main: Callable[[list[str]], int], argv: list[str], root: Path) -> tuple[int, str]:
    """`main(argv)` inside `root` (a relative output path lands there): exit code, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
            code = exit_.code if isinstance(exit_.code, int) else -1  # -1: not argparse's
    return code, err.getvalue()


@pytest.mark.parametrize("kind", ["plan", "diff", "mangled"])
@FUZZ
@given(data=st.data())
def test_stacks_cli_never_prints_a_traceback(files: Files, kind: str, data: st.DataObject) -> None:
    argv = data.draw(stacks_argvs(files)[kind], label="argv")
    code, stderr = _run(stacks_main, argv, files.root)
    assert code in (0, 1, 2), (argv, code, stderr)
    assert "Traceback" not in stderr, (argv, stderr)


@pytest.mark.parametrize("kind", ["criteria", "mangled"])
@FUZZ
@given(data=st.data())
def test_recipes_cli_never_prints_a_traceback(files: Files, kind: str, data: st.DataObject) -> None:
    argv = data.draw(recipes_argvs(files)[kind], label="argv")
    code, stderr = _run(recipes_main, argv, files.root)
    assert code in (0, 1, 2), (argv, code, stderr)
    assert "Traceback" not in stderr, (argv, stderr)


def test_the_fuzzed_files_are_what_they_claim(files: Files) -> None:
    """The snapshot diffs clean against itself; the other inputs are refused with exit 2."""
    snapshot = files.inputs[0]
    assert _run(stacks_main, ["diff", snapshot, snapshot], files.root)[0] == 0
    for bad in files.inputs[1:]:
        code, stderr = _run(stacks_main, ["diff", snapshot, bad], files.root)
        assert (code, stderr.startswith("error: ")) == (2, True), (bad, stderr)
