"""A plan snapshot read back from its file, checked for the shape `stacks.offline.snapshot.recorded`
writes, so `stacks diff` refuses a wrong file in one line (exit 2) instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core import read_json
from core.errors import GpuCiError
from core.read_files import FileMissingError, FileRefusedError, read_bytes
from core.read_limits import PLAN_SNAPSHOT
from stacks.offline.snapshot.shape import Snapshot


class SnapshotError(GpuCiError):
    """A file that is not a readable plan snapshot (one line, naming the file)."""


_REQUIRED: dict[str, type] = {
    "urn": str,
    "type": str,
    "name": str,
    "parent": str,
    "dependencies": list,
}


def load_snapshot(path: Path, root: Path | None = None) -> Snapshot:
    """A snapshot file, checked for the shape `stacks.offline.snapshot.recorded` writes.

    Read by the careful reader (`core.read_json`, `PLAN_SNAPSHOT`): a regular file (a named
    pipe is refused, never opened), inside `root` once symlinks are followed when given
    (a `plan --all` folder), within the size and nesting bounds."""
    where = f"the folder {root}" if root is not None else ""
    try:
        raw = read_bytes(path, name=str(path), limits=PLAN_SNAPSHOT, root=root, where=where)
    except FileMissingError:
        raise SnapshotError(
            f"{path}: cannot read the plan snapshot (No such file or directory)"
        ) from None
    except FileRefusedError as err:
        raise SnapshotError(str(err)) from None
    try:
        text = raw.decode("utf-8")
        data = read_json.parse(text, name=str(path), limits=PLAN_SNAPSHOT)
    except UnicodeDecodeError as err:
        raise SnapshotError(f"{path}: cannot read the plan snapshot ({err})") from None
    except json.JSONDecodeError as err:
        raise SnapshotError(
            f"{path}: not JSON ({err.msg} at line {err.lineno}, column {err.colno}); "
            "write it with `python -m stacks plan STACK --json FILE`"
        ) from None
    except read_json.JsonRefusedError as err:
        raise SnapshotError(str(err)) from None
    problem = _shape_problem(data)
    if problem:
        raise SnapshotError(f"{path}: not a plan snapshot ({problem})")
    snapshot: Snapshot = data
    return snapshot


def _shape_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    top: dict[str, type] = {"project": str, "stack": str, "resources": list}
    for key, kind in top.items():
        if not isinstance(data.get(key), kind):
            return f"`{key}` is missing or not a {kind.__name__}"
    if not isinstance(data.get("outputs", {}), dict):
        return "`outputs` is not an object"
    return next(filter(None, map(_resource_problem, enumerate(data["resources"]))), None)


def _resource_problem(item: tuple[int, Any]) -> str | None:
    i, r = item
    if not isinstance(r, dict):
        return f"resources[{i}] is not an object"
    for key, kind in _REQUIRED.items():
        if not isinstance(r.get(key), kind):
            return f"resources[{i}].{key} is missing or not a {kind.__name__}"
    if not isinstance(r.get("inputs", {}), dict):
        return f"resources[{i}].inputs is not an object"
    return None
