"""A YAML file read the way the Pulumi CLI reads it (YAML 1.2, through yaml.v3).

Stack files and ESC environment definitions are both read here: decoded as the CLI
decodes them, checked (`stacks.offline.yaml_checks`) before they are constructed, and
every error turned into one line naming the file, the line and the fix.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core import yaml_text
from core.errors import GpuCiError
from stacks.offline.yaml_checks import MAX_DEPTH, Checker, too_deep


@dataclass(frozen=True)
class Document:
    data: Any
    # The text of each top-level `config` value that is a scalar, as written: the CLI
    # reads those into Go strings, which take the scalar's text whatever it resolves to
    # (`0x1F` stays "0x1F", `True` "True"); null becomes "".
    scalar_text: dict[str, str]
    blank: bool = False  # no text but whitespace (a document of comments only is not)


def read_document(path: Path) -> Document:
    """`path` read as the Pulumi CLI reads it (YAML 1.2 through yaml.v3), or a GpuCiError
    that names the file, the line and the fix."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise GpuCiError(f"{path.name}: no such file in {path.parent}") from None
    name = path.name
    text = _decode(name, raw)
    try:
        node, loader = yaml_text.compose_core(text, name, max_depth=MAX_DEPTH)
    except yaml_text.NestingTooDeep as err:
        raise too_deep(name, err.line) from None
    except yaml.YAMLError as err:
        raise GpuCiError(_yaml_error(name, text, err)) from None
    try:
        if node is None:
            return Document(None, {}, blank=not text.strip())
        Checker(name).check(node)
        data = loader.construct_document(node)
    except yaml.YAMLError as err:  # a check above should have caught it first
        raise GpuCiError(_yaml_error(name, text, err)) from None
    finally:
        loader.dispose()
    return Document(data, _scalar_text(node))


def _decode(name: str, raw: bytes) -> str:
    """The file's text: UTF-8 (a BOM dropped, as the CLI drops it), or UTF-16 with a BOM
    (which yaml.v3 reads too)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError as err:
            raise GpuCiError(
                f"{name}: the file starts as UTF-16 but is not UTF-16 "
                f"(line {_line(raw, err.start)}); save it as UTF-8"
            ) from None
        raw = text.encode("utf-8")  # UTF-32 passes as UTF-16 with NULs: refused below
    raw = raw.removeprefix(codecs.BOM_UTF8)
    nul = raw.find(b"\0")
    if nul >= 0:
        raise GpuCiError(
            f"{name}: the file holds NUL bytes, as UTF-16 without a byte-order mark does "
            f"(line {_line(raw, nul)}); save it as UTF-8"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise GpuCiError(
            f"{name}: byte 0x{raw[err.start]:02x} is not UTF-8 (line {_line(raw, err.start)}); "
            "save the file as UTF-8"
        ) from None


def _line(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def _yaml_error(name: str, text: str, err: yaml.YAMLError) -> str:
    """One line: what is wrong, where, and the fix; never `in "<unicode string>"`."""
    if isinstance(err, yaml.reader.ReaderError):
        line = text.count("\n", 0, err.position) + 1
        code = ord(err.character) if isinstance(err.character, str) else err.character
        escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        return (
            f"{name}: character U+{code:04X} is not allowed in YAML (line {line}); "
            f'remove it, or write it as "{escape}" in a double-quoted string'
        )
    if isinstance(err, yaml.MarkedYAMLError):
        parts = []
        if err.context:
            at = f" (line {err.context_mark.line + 1})" if err.context_mark else ""
            parts.append(f"{err.context}{at}")
        if err.problem:
            at = ""
            if err.problem_mark:
                at = f" (line {err.problem_mark.line + 1}, column {err.problem_mark.column + 1})"
            parts.append(f"{err.problem}{at}")
        what = ", ".join(parts) or str(err).splitlines()[0]
        return f"{name}: not valid YAML: {what}; fix the YAML there"
    return f"{name}: not valid YAML: {' '.join(str(err).split())}"


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
