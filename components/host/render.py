"""Render a step into one self-contained bash script.

Layout: the shebang on line 1 (a shebang anywhere else is silently ignored: the
Kubeflow bootstrap's was on line 18), then the step's typed parameters as shell-quoted
`readonly` assignments, then `lib.sh` (with the functions it shares with the gpu-cluster
action, `common.sh`, inlined where its `# @inline` lines name them), then the step body.
The result depends only on the step and its parameters, so its hash is a stable Pulumi
trigger.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import typing
from functools import cache
from importlib import resources

from pydantic import BaseModel, SecretBytes, SecretStr

from components.host.params.by_step import PARAMS_BY_STEP
from components.host.params.step import Step, StepParams
from core.errors import GpuCiError

SHEBANG = "#!/usr/bin/env bash"

_DIRECTIVE = re.compile(r"^# shellcheck shell=\w+\n", re.MULTILINE)
_INLINE = re.compile(r"^# @inline (?P<file>[\w-]+)\.sh: (?P<names>\w+(?: \w+)*)$", re.MULTILINE)
_FUNCTION = re.compile(r"(?:^#.*\n)*^(?P<name>\w+)\(\) \{\n(?:.*\n)*?\}$", re.MULTILINE)
_SECRET_TYPES = (SecretStr, SecretBytes)


class SecretInScriptError(GpuCiError):
    """A secret-typed parameter would be written into a script (and into Pulumi state)."""


@cache
def script_source(name: str) -> str:
    """The text of `scripts/<name>.sh` as stored in the repository."""
    return resources.files("components.host").joinpath("scripts", f"{name}.sh").read_text()


@cache
def script_functions(name: str) -> dict[str, str]:
    """The functions of `scripts/<name>.sh` by name, each with the comment lines above it."""
    return {match["name"]: match[0] for match in _FUNCTION.finditer(script_source(name))}


@cache
def library_source() -> str:
    """`lib.sh` with each `# @inline FILE.sh: NAME...` line replaced by those functions of
    FILE.sh (common.sh: what the gpu-cluster action shares), as every step inlines it. They
    stand where they stood before they were shared, so the steps' bytes did not change."""

    def inline(match: re.Match[str]) -> str:
        shared = script_functions(match["file"])
        missing = [name for name in match["names"].split() if name not in shared]
        if missing:
            raise ValueError(f"lib.sh inlines {missing} from {match['file']}.sh, which lacks them")
        return "\n\n".join(shared[name] for name in match["names"].split())

    return _INLINE.sub(inline, script_source("lib"))


def _mentions_secret(annotation: object) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, _SECRET_TYPES):
        return True
    return any(_mentions_secret(arg) for arg in typing.get_args(annotation))


def _shell_value(field: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"parameter {field} contains a NUL byte")
        return shlex.quote(value)
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return "(" + " ".join(_shell_value(field, v) for v in value) + ")"
    raise TypeError(f"parameter {field}: {type(value).__name__} cannot be rendered into a script")


def render_parameters(params: BaseModel) -> list[str]:
    """`readonly NAME=value` lines for every field; refuses secrets."""
    lines = []
    for field, info in type(params).model_fields.items():
        value = getattr(params, field)
        if _mentions_secret(info.annotation) or isinstance(value, _SECRET_TYPES):
            raise SecretInScriptError(
                f"parameter {field!r} is a secret; secrets are never rendered into host "
                "scripts (pass them on stdin or as a file the step reads)"
            )
        name = field.upper()
        flag = " -a" if isinstance(value, tuple) else ""
        lines.append(f"readonly{flag} {name}={_shell_value(field, value)}")
    return lines


def render_script(step: Step, params: StepParams) -> str:
    """The complete script for `step`, ready to run with `bash` or as an executable."""
    expected = PARAMS_BY_STEP[step]
    if not isinstance(params, expected):
        raise TypeError(f"step {step} takes {expected.__name__}, not {type(params).__name__}")
    parts = [
        SHEBANG,
        # lib.sh is shared: a step need not call every helper (file-wide directive).
        "# shellcheck disable=SC2329",
        f"# gpu-ci host step {step}: rendered by components/host/render.py, do not edit.",
        f"readonly GPU_CI_STEP={shlex.quote(str(step))}",
        *render_parameters(params),
        "",
        _DIRECTIVE.sub("", library_source()).rstrip("\n"),
        "",
        _DIRECTIVE.sub("", script_source(str(step))).rstrip("\n"),
        "",
    ]
    return "\n".join(parts)


def script_sha256(script: str) -> str:
    """Digest of a rendered script: the trigger that re-runs a step when it changes."""
    return hashlib.sha256(script.encode()).hexdigest()
