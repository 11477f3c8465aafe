"""Read `Pulumi.yaml` and `Pulumi.<stack>.yaml` the way the Pulumi CLI hands them over.

The CLI passes the program a flat map of `namespace:key` to strings (objects as JSON) and a
list of secret keys. `secure:` values cannot be decrypted offline; they become placeholders
and their top-level keys are marked secret, exactly as `pulumi up` marks them.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

from core import yaml_text
from core.errors import GpuCiError, did_you_mean

# What one stack file may hold: no config is near these, and an "alias bomb" (a few lines
# of nested aliases that expand to a billion values) is refused before it is expanded.
MAX_VALUES = 100_000  # nodes, aliases expanded
MAX_DEPTH = 100  # nested mappings and lists
MAX_INT_DIGITS = 30


@dataclass(frozen=True)
class StackFile:
    project: str
    stack: str
    config: dict[str, str]
    secret_keys: frozenset[str]
    # One line per Pulumi ESC environment read (stacks/offline/environments.py): which keys it gave.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Document:
    data: Any
    # The text of each top-level `config` value that is a scalar, as written: the CLI
    # reads those into Go strings, which take the scalar's text whatever it resolves to
    # (`0x1F` stays "0x1F", `True` "True"); null becomes "".
    scalar_text: dict[str, str]
    blank: bool = False  # no text but whitespace (a document of comments only is not)


def _load_yaml(path: Path) -> Any:
    return _read_document(path).data


def _read_document(path: Path) -> _Document:
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
        raise _too_deep(name, err.line) from None
    except yaml.YAMLError as err:
        raise GpuCiError(_yaml_error(name, text, err)) from None
    try:
        if node is None:
            return _Document(None, {}, blank=not text.strip())
        _Checker(name).check(node)
        data = loader.construct_document(node)
    except yaml.YAMLError as err:  # a check above should have caught it first
        raise GpuCiError(_yaml_error(name, text, err)) from None
    finally:
        loader.dispose()
    return _Document(data, _scalar_text(node))


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


def _too_deep(name: str, line: int) -> GpuCiError:
    return GpuCiError(
        f"{name}: values nest more than {MAX_DEPTH} levels deep (line {line}); "
        "flatten them: no stack config nests that deep"
    )


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


def _dotted(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _where(path: tuple[str | int, ...]) -> str:
    """How a message names the value at `path`: `config key gpu-ci:vm.count`."""
    if not path:
        return "the document"
    if path[0] == "config" and len(path) > 1:
        return f"config key {_dotted(path[1:])}"
    return f"key {_dotted(path)}"


def _short_tag(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return f"!!{tag[len(prefix) :]}" if tag.startswith(prefix) else tag


_KIND_OF_TAG = {
    yaml_text.INT: "an integer",
    yaml_text.FLOAT: "a number",
    yaml_text.BOOL: "a boolean",
    yaml_text.NULL: "null",
}


class _Checker:
    """Refuses, before anything is constructed, what the CLI refuses or no stack file
    needs: duplicate keys, keys that are not strings, tags beyond YAML's core ones,
    aliases that expand past MAX_VALUES, nesting past MAX_DEPTH and integers past
    MAX_INT_DIGITS. Aliases are followed (each use counts), so the budget bounds the
    expanded document; a value that contains itself is refused."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values = 0
        self.open: set[int] = set()  # the collections being walked (for cycles)

    def fail(self, path: tuple[str | int, ...], node: yaml.Node, what: str, fix: str) -> NoReturn:
        raise GpuCiError(
            f"{self.name}: {_where(path)} {what} (line {node.start_mark.line + 1}); {fix}"
        )

    def check(self, node: yaml.Node) -> None:
        self.walk(node, (), 1)

    def walk(self, node: yaml.Node, path: tuple[str | int, ...], depth: int) -> None:
        self.values += 1
        if self.values > MAX_VALUES:
            raise GpuCiError(
                f"{self.name}: aliases expand {_where(path[:2])} past {MAX_VALUES} values "
                f"(line {node.start_mark.line + 1}); write the values out instead of "
                "nesting aliases"
            )
        if depth > MAX_DEPTH:
            raise _too_deep(self.name, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            self.scalar(node, path)
            return
        if id(node) in self.open:
            self.fail(
                path,
                node,
                "is an alias of a mapping or list it is inside",
                "an alias must refer to a value outside it",
            )
        expected = yaml_text.MAP if isinstance(node, yaml.MappingNode) else yaml_text.SEQ
        if node.tag != expected:
            self.bad_tag(path, node)
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    self.walk(item, (*path, i), depth + 1)
            elif isinstance(node, yaml.MappingNode):
                self.mapping(node, path, depth)
        finally:
            self.open.discard(id(node))

    def mapping(self, node: yaml.MappingNode, path: tuple[str | int, ...], depth: int) -> None:
        seen: dict[str, int] = {}
        for key, value in node.value:
            self.values += 1
            text = self.key_text(key, path)
            line = key.start_mark.line + 1
            if text in seen:  # yaml.v3 compares keys as written (so "1" and 1 are one key)
                label = _where((*path, text))
                if key.tag == yaml_text.MERGE:
                    label = f"the merge key << of {_where(path)}"
                raise GpuCiError(
                    f"{self.name}: {label} is given twice (lines {seen[text]} and {line}); keep one"
                )
            seen[text] = line
            if key.tag == yaml_text.MERGE:
                self.merge(value, path, depth)
            else:
                self.walk(value, (*path, text), depth + 1)

    def key_text(self, key: yaml.Node, path: tuple[str | int, ...]) -> str:
        if not isinstance(key, yaml.ScalarNode):
            kind = "a mapping" if isinstance(key, yaml.MappingNode) else "a list"
            self.fail(path, key, f"has {kind} as a key", "keys must be strings")
        if key.tag not in (yaml_text.STR, yaml_text.MERGE):
            if key.tag not in _KIND_OF_TAG:
                self.bad_tag(path, key)
            text = str(key.value)
            if not text:
                self.fail(path, key, "has an empty key", "name the key")
            self.fail(
                path,
                key,
                f"has the key {text}, which YAML reads as {_KIND_OF_TAG[key.tag]}, not a string",
                f'quote it: "{text}"',
            )
        return str(key.value)

    def merge(self, value: yaml.Node, path: tuple[str | int, ...], depth: int) -> None:
        sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self.fail(
                    path,
                    source,
                    "merges (<<) something that is not a mapping",
                    "merge a mapping, like <<: *defaults",
                )
            self.walk(source, path, depth + 1)

    def scalar(self, node: yaml.ScalarNode, path: tuple[str | int, ...]) -> None:
        tag, text = node.tag, str(node.value)
        if tag not in yaml_text.CORE_SCALAR_TAGS:
            self.bad_tag(path, node)
        if tag != yaml_text.STR:  # an explicit tag must fit the text, as yaml.v3 checks
            resolved = yaml_text.core_tag(text)
            if resolved != tag and not (tag == yaml_text.FLOAT and resolved == yaml_text.INT):
                self.fail(
                    path,
                    node,
                    f"is tagged {_short_tag(tag)}, but {text!r} is not {_KIND_OF_TAG[tag]}",
                    "remove the tag or fix the value",
                )
        if len(path) == 2 and path[0] == "config":
            return  # a top-level value: the CLI hands the program its text, as written
        if tag in (yaml_text.INT, yaml_text.FLOAT):
            digits = text.replace("_", "").lstrip("+-")
            if tag == yaml_text.INT and digits[:2].lower() in ("0x", "0o", "0b"):
                digits = digits[2:]
            digits = digits.lstrip("0")
            if (tag == yaml_text.INT or digits.isdigit()) and len(digits) > MAX_INT_DIGITS:
                self.fail(
                    path,
                    node,
                    f"is an integer of {len(digits)} digits, more than {MAX_INT_DIGITS}",
                    "quote it if it is an ID or other text",
                )
            if not math.isfinite(yaml_text.core_float(text)):
                self.fail(
                    path,
                    node,
                    f"is {text}, which JSON cannot hold, and the CLI passes objects to the "
                    "program as JSON",
                    f'quote it: "{text}"',
                )

    def bad_tag(self, path: tuple[str | int, ...], node: yaml.Node) -> NoReturn:
        self.fail(
            path,
            node,
            f"has the tag {_short_tag(node.tag)}, which stack files do not use",
            "remove it: only YAML's core types (strings, numbers, true/false, null, "
            "lists and mappings) are config",
        )


def _scalar_text(root: yaml.Node) -> dict[str, str]:
    """The text of the scalar top-level config values (`_Document.scalar_text`).

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


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _strip_secure(value: Any, path: str, found: list[str]) -> Any:
    """Replace nested `secure:` values with placeholders, noting where they were."""
    if _is_secure(value):
        found.append(path)
        # The ciphertext's digest, so a rotated secret plans as a changed one (an update
        # the diff can show) while its value stays unknown offline.
        digest = hashlib.sha256(str(value["secure"]).encode()).hexdigest()[:12]
        return f"offline-placeholder:{path}:{digest}"
    if isinstance(value, dict):
        return {k: _strip_secure(v, f"{path}.{k}", found) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_secure(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def _go_numbers(value: Any) -> Any:
    """`value` with floats as Go's encoding/json writes them: a whole float64 below 1e21
    has no fraction (`1.0` is 1), so the program reads it back as an integer."""
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _as_cli_string(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(_go_numbers(value), sort_keys=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def project_name(root: Path) -> str:
    doc = _load_yaml(root / "Pulumi.yaml")
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise GpuCiError("Pulumi.yaml: `name` (the project name) is missing")
    return str(doc["name"])


TOP_LEVEL_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
"""The keys of a Pulumi stack file (the CLI's ProjectStack); anything else is a typo."""
LAYER_KEYS = "gpu-ci:capacity ('vm' or 'arc'), gpu-ci:host or gpu-ci:platform"
"""What the smallest stack sets: one layer (Pulumi.workstation.yaml: capacity none, a host)."""


def stacks_here(root: Path) -> list[str]:
    """The stacks of the project in `root`: one per `Pulumi.<stack>.yaml`."""
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in root.glob("Pulumi.?*.yaml"))


def stacks_listing(root: Path) -> str:
    """`stacks here: a, b`, or that `root` holds none (a wrong --project-dir)."""
    stacks = stacks_here(root)
    if not stacks:
        return f"no Pulumi.<stack>.yaml files in {root}"
    return f"stacks here: {', '.join(stacks)}"


def _config_section(name: str, document: _Document) -> dict[Any, Any]:
    """The file's `config:` mapping, or a GpuCiError saying what is missing.

    A stack file without settings plans no resources, and `pulumi up` on a deployed stack
    would then delete every one, so an empty file, an empty `config:` and a misspelt
    top-level key are refused, never read as "nothing". With `environment:` the config
    may all come from ESC: what it gives is checked as config (a layer is required)."""
    doc = document.data
    fix = "the stack's settings go under config:"
    if doc is None:
        what = "the file is empty" if document.blank else "the file holds only comments"
        raise GpuCiError(f"{name}: no `config:` section ({what}); {fix}")
    if not isinstance(doc, dict):
        kind = "a list" if isinstance(doc, list) else f"the value {doc!r}"
        raise GpuCiError(f"{name}: the file is {kind}, not a mapping; {fix}")
    # A misspelt key (`configs`, `enviroment`) is refused; any other one the CLI ignores
    # too, so a key that only holds YAML anchors (`defaults: &defaults`) stays allowed.
    typos = {str(k): did_you_mean(str(k), TOP_LEVEL_KEYS) for k in doc if k not in TOP_LEVEL_KEYS}
    typos = {key: guess for key, guess in typos.items() if guess}
    if "config" not in doc and "environment" not in doc:  # ESC environments give config too
        found = ", ".join(map(str, doc))
        hint = "; did you mean config?" if "config" in typos.values() else ""
        raise GpuCiError(f"{name}: no `config:` section (found: {found}{hint}); {fix}")
    if typos:
        key, guess = next(iter(typos.items()))
        raise GpuCiError(
            f"{name}: unknown top-level key {key!r} (did you mean {guess!r}?); a stack file "
            f"holds {', '.join(TOP_LEVEL_KEYS)}"
        )
    raw = doc.get("config")
    if raw is None or raw == {}:
        if "environment" in doc:  # the environments' keys are checked as config
            return {}
        raise GpuCiError(
            f"{name}: config: is empty: a gpu-ci stack sets at least one of {LAYER_KEYS}"
        )
    if not isinstance(raw, dict):
        raise GpuCiError(f"{name}: `config` must be a mapping of namespace:key to values")
    return raw


def read_stack_file(root: Path, stack: str) -> StackFile:
    """The config of `Pulumi.<stack>.yaml` as the CLI would pass it to the program."""
    path = root / f"Pulumi.{stack}.yaml"
    if not path.exists():
        raise GpuCiError(f"no stack {stack!r}: {path.name} does not exist ({stacks_listing(root)})")
    document = _read_document(path)
    raw = _config_section(path.name, document)
    config: dict[str, str] = {}
    secret: set[str] = set()
    for key, value in raw.items():
        if ":" not in str(key):
            raise GpuCiError(
                f"{path.name}: config key {key!r} needs a namespace, like gpu-ci:{key}"
            )
        if key in document.scalar_text:  # the CLI reads these as strings, as written
            config[str(key)] = document.scalar_text[key]
            continue
        found: list[str] = []
        config[str(key)] = _as_cli_string(_strip_secure(value, str(key), found))
        if found:
            secret.add(str(key))
    # The `environment:` imports, merged in as `pulumi up` merges them (stack values win).
    from stacks.offline.environments import apply_environments  # noqa: PLC0415  (it imports this)

    project = project_name(root)
    notes = apply_environments(root, path.name, project, document.data, raw, config, secret)
    return StackFile(project, stack, config, frozenset(secret), notes)
