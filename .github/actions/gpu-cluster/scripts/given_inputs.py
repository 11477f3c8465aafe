"""The action's inputs as the workflow gave them (the INPUT_* variables, by the names the
workflow used), and a problem with them (`InputProblem`), told as one annotation each."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import NoReturn

from workflow_commands import TITLE, annotate, log


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def input_variable(name: str) -> str:
    """The variable action.yml passes input `name` in: gpu-count -> INPUT_GPU_COUNT."""
    return "INPUT_" + name.upper().replace("-", "_")


def lines(name: str) -> list[str]:
    return [line.strip() for line in env(name).splitlines() if line.strip()]


def aliases() -> dict[str, str]:
    """Our input -> the helm/kind-action name the workflow gave it by (GPU_CI_ALIASES)."""
    pairs = (item.partition("=") for item in env("GPU_CI_ALIASES").split())
    return {ours: theirs for ours, _, theirs in pairs if theirs}


@dataclass(frozen=True)
class Given:
    """An input as the workflow gave it: its name (the helm/kind-action alias, where the
    workflow used that) and its value; `line`: one line (0-based) of a one-a-line input."""

    name: str
    value: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" line {self.line + 1}" if self.line is not None else ""
        return f"{self.name}{where} " + (f"'{shown(self.value)}'" if self.value else "(empty)")


SHOWN = 120
"""The characters of a value a message repeats (an alias bomb need not fill the log)."""


def shown(value: str) -> str:
    if len(value) <= SHOWN:
        return value
    return f"{value[:SHOWN]}... ({len(value)} characters)"


def given(name: str, line: int | None = None) -> Given:
    """Input `name` (ours) as the workflow gave it."""
    value = env(input_variable(name))
    if line is not None:
        values = lines(input_variable(name))
        value = values[line] if 0 <= line < len(values) else ""
    return Given(aliases().get(name, name), value, line)


@dataclass(frozen=True)
class InputProblem:
    """One problem, in the inputs' words: the inputs it is about, what the action did
    itself where that is part of it (`did`), and what is wrong."""

    inputs: tuple[Given, ...]
    message: str
    did: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        names = list(dict.fromkeys(g.name for g in self.inputs))
        if not names:
            return TITLE
        return f"gpu-ci input{'s' if len(names) > 1 else ''} {', '.join(names)}"

    @property
    def text(self) -> str:
        text = f"{'; '.join(self.did)}: {self.message}" if self.did else self.message
        if self.inputs:
            label = "inputs" if len(self.inputs) > 1 else "input"
            text = f"{label} {', '.join(map(str, self.inputs))}: {text}"
        return text


def fail(problems: list[InputProblem]) -> NoReturn:
    """Each problem once, as its annotation; one line counting them; exit 1."""
    for problem in problems:
        annotate("error", problem.text, problem.title)
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    log(f"stopped before anything was created: {count}, each in an annotation above")
    sys.exit(1)
