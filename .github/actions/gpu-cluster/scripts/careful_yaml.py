"""The YAML the action reads from the workflow, read as carefully as the program reads a
stack file: the `stack-config` file (only inside the workspace) and YAML-valued inputs.

An alias bomb (a few lines that expand to a billion values) or a list nested thousands
deep must end in one message, not in a hang, a MemoryError or a RecursionError; a
`stack-config` that leads out of the workspace (`../../etc/passwd`, a symlink to
`~/.ssh`) must be refused without a line of that file reaching the log. The reading
itself is the program's: its folder, four above this one (as prepare.sh finds it), is
put on sys.path for `core` and `stacks`.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Any

PROGRAM = Path(__file__).resolve().parents[4]
if str(PROGRAM) not in sys.path:
    sys.path.append(str(PROGRAM))

from core import read_yaml  # noqa: E402  (after PROGRAM is on sys.path)
from core.errors import GpuCiError  # noqa: E402
from core.read_limits import ACTION_INPUT  # noqa: E402
from stacks.offline.stack_file.yaml_document import read_document  # noqa: E402

__all__ = ["GpuCiError", "RefusedError", "read_input", "read_stack_file", "workspace_file"]

MAX_STACK_CONFIG_BYTES = 1 << 20
"""A stack-config file adds a few keys to the action's stack; 1 MiB is far above that."""


class RefusedError(GpuCiError):
    """A file or value the action will not read; the message says why and the fix."""


def workspace_file(given: str, workspace: str) -> Path:
    """The file `given` names (a path relative to `workspace`, or absolute), its symlinks
    resolved, checked before it is opened: inside `workspace` (resolved too), then a
    regular file (a FIFO would block), then at most MAX_STACK_CONFIG_BYTES. A refusal
    never says where a symlink leads or what the file holds."""
    if not workspace:
        raise RefusedError(
            "GITHUB_WORKSPACE is not set, and stack-config is read only inside the workspace"
        )
    root = Path(workspace).resolve()
    try:
        path = (root / given).resolve()  # an absolute `given` replaces root
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        raise RefusedError("cannot read it (a loop of symbolic links)") from None
    if not path.is_relative_to(root):
        raise RefusedError(
            f"is outside the workspace ({root}) once its symbolic links are followed; the "
            "action reads stack-config only from the repository the job checked out: give "
            "the path of a stack file in it"
        )
    try:
        info = path.stat()
    except OSError as err:
        raise RefusedError(f"cannot read it ({err.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise RefusedError("is not a regular file: give the path of a stack file")
    if info.st_size > MAX_STACK_CONFIG_BYTES:
        raise RefusedError(
            f"is {info.st_size} bytes, more than {MAX_STACK_CONFIG_BYTES} (1 MiB): a "
            "stack-config holds a few keys of the stack"
        )
    return path


def read_stack_file(path: Path, workspace: Path | None = None) -> Any:
    """A stack file's data, read as the Pulumi CLI reads it, bounded as the program bounds
    its own stack files (stacks.offline.stack_file.yaml_document.read_document); GpuCiError else.
    With `workspace`, the reader checks again, on the file it opens, that it lies there."""
    if workspace is None:
        return read_document(path).data
    return read_document(path, workspace, "GITHUB_WORKSPACE").data


def read_input(text: str, name: str) -> Any:
    """An input's value read as YAML 1.2 (as a stack file is), within ACTION_INPUT's bounds
    (core.read_yaml.load); GpuCiError, naming `name`, for anything else."""
    return read_yaml.load(text, name=name, limits=ACTION_INPUT, schema=read_yaml.CORE).data
