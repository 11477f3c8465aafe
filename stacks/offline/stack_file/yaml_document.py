"""A YAML file read the way the Pulumi CLI reads it (YAML 1.2, through yaml.v3).

Stack files and ESC environment definitions are both read here, through the one careful
reader (`core.read_yaml`: a regular file inside the project, bounded in size, depth and
alias expansion, decoded as the CLI decodes it), with a stack file's own checks
(`stacks.offline.stack_file.yaml_checks`) run on the node tree before anything is constructed; every
error is one line naming the file, the line and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core import read_yaml, yaml_text
from core.read_files import FileMissingError
from core.read_limits import STACK_FILE
from stacks.offline.stack_file.yaml_checks import Checker


@dataclass(frozen=True)
class Document:
    data: Any
    # The text of each top-level `config` value that is a scalar, as written: the CLI
    # reads those into Go strings, which take the scalar's text whatever it resolves to
    # (`0x1F` stays "0x1F", `True` "True"); null becomes "".
    scalar_text: dict[str, str]
    blank: bool = False  # no text but whitespace (a document of comments only is not)


def read_document(path: Path, root: Path | None = None, where: str = "") -> Document:
    """`path` read as the Pulumi CLI reads it (YAML 1.2 through yaml.v3), or a GpuCiError
    that names the file, the line and the fix.

    The file, its symlinks followed, must lie in `root` (default: its own folder, the
    project's; `where` names it in messages)."""
    name = path.name
    folder = root if root is not None else path.parent
    try:
        parsed = read_yaml.read(
            path,
            name=name,
            limits=STACK_FILE,
            schema=read_yaml.CORE,
            root=folder,
            where=where or f"the project folder {folder}",
            check=Checker(name).check,
        )
    except FileMissingError:
        raise FileMissingError(f"{name}: no such file in {path.parent}") from None
    if parsed.node is None:
        return Document(None, {}, blank=not parsed.text.strip())
    return Document(parsed.data, _scalar_text(parsed.node))


def _scalar_text(root: yaml.Node) -> dict[str, str]:
    """The text of the scalar top-level config values (`Document.scalar_text`).

    Read after construction, when merges (`<<`) are flattened into each mapping's pairs;
    a later pair wins, as in the constructed mapping."""
    config = None
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value == "config":
                config = value
    found: dict[str, str] = {}
    if isinstance(config, yaml.MappingNode):
        for key, value in config.value:
            if isinstance(value, yaml.ScalarNode):
                found[str(key.value)] = "" if value.tag == yaml_text.NULL else str(value.value)
            else:
                found.pop(str(key.value), None)
    return found
