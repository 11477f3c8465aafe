"""An ESC environment's definition, read offline from `esc/PROJECT/ENV.yaml`.

Each definition is read once, its `imports:` first, into a tree of values that merges as
ESC merges (mappings key by key, anything else replaced). What only ESC can evaluate
(`fn::open`, interpolation) is refused, naming the file and the value to write instead;
`fn::secret` is kept as a secret (`EscSecret`), never read as plain text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import GpuCiError, did_you_mean
from stacks.offline.stack_file.yaml_document import read_document

ESC_DIR = "esc"
DEFAULT_PROJECT = "default"  # where ESC keeps environments named without a project
_NAME_PART = re.compile(r"[A-Za-z0-9_.-]+")
# `NAME@VERSION` (esc cmd/esc/cli/env.go parseRef cuts at the first '@'): a revision number
# or a tag (ESC docs, "Versioning": `@4`, tags such as `production`, `v1.2.1`, `stable`, the
# built-in `latest`), of an environment name's characters ("Environments": alphanumerics,
# hyphens, underscores and periods).
_VERSION = re.compile(r"(?!\.{1,2}$)[A-Za-z0-9_.-]+")
_DEFINITION_KEYS = ("imports", "values")
MAX_IMPORT_DEPTH = 32
"""Environments importing one another in a chain: ESC documents no limit, real setups use
two or three levels, and each level is a call here (a chain of thousands would end in
RecursionError); past this, one message instead."""
_INTERPOLATION = re.compile(r"(?<!\$)\$\{[^}]*\}?")


@dataclass(frozen=True)
class EscSecret:
    """An `fn::secret` value: what its placeholder's digest is taken of."""

    text: str


@dataclass(frozen=True)
class Leaf:
    """A value that replaces, never merges: a scalar, a list or a secret."""

    value: Any  # plain JSON, with EscSecret where a secret was
    source: str  # the environment that gave it


Tree = dict[str, Any]  # str -> Tree | Leaf


def _split_name(name: str, importer: str) -> tuple[str, str]:
    base, at, version = name.partition("@")  # `gpu-ci/dev@8`, `@stable`: one definition here
    if at and not _VERSION.fullmatch(version):
        raise GpuCiError(
            f"{importer}: {name!r}: the version after '@' is a revision number or a tag "
            "(letters, digits, '-', '_' and '.'), like gpu-ci/dev@4 or gpu-ci/dev@stable"
        )
    parts = base.split("/")
    if len(parts) == 1:
        parts = [DEFAULT_PROJECT, *parts]
    if len(parts) != 2 or not all(_NAME_PART.fullmatch(p) and p not in (".", "..") for p in parts):
        raise GpuCiError(
            f"{importer}: {name!r} is not an ESC environment name; write PROJECT/ENV, "
            "like gpu-ci/dev"
        )
    return parts[0], parts[1]


class EnvironmentReader:
    """Reads environment definitions, each once, in the order they are first imported."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, str] = {}  # environment name -> its file (relative)
        self.definitions: dict[str, Tree] = {}

    def pulumi_config(self, name: str, importer: str, chain: tuple[str, ...]) -> Tree:
        """The `values.pulumiConfig` of environment `name`, its imports merged under it."""
        project, env = _split_name(name, importer)
        key = f"{project}/{env}"
        if key in chain:
            raise GpuCiError(
                f"{importer}: ESC environment imports form a cycle: {' -> '.join((*chain, key))}"
            )
        if key in self.definitions:
            return self.definitions[key]
        if len(chain) >= MAX_IMPORT_DEPTH:
            raise GpuCiError(
                f"{importer}: ESC environments import one another more than "
                f"{MAX_IMPORT_DEPTH} deep ({chain[0]} -> ... -> {key}); import the "
                "environments a stack needs from fewer levels"
            )
        rel = f"{ESC_DIR}/{project}/{env}.yaml"
        path = self.root / rel
        if not os.path.lexists(path):  # a pipe, or a link out of the project: refused when read
            raise GpuCiError(
                f"{importer} imports ESC environment {name}, which the offline plan cannot "
                f"open: put its definition (the YAML `pulumi env edit {key}` shows, with "
                f"placeholders for its secrets) in {rel}"
            )
        self.files.setdefault(name, rel)
        doc = _read(path, rel, self.root)
        if not isinstance(doc, dict):
            raise GpuCiError(
                f"{rel}: an ESC environment definition is a mapping with values: (and "
                "imports:, if any)"
            )
        for top in doc:
            if top not in _DEFINITION_KEYS:
                guess = did_you_mean(str(top), _DEFINITION_KEYS)
                hint = f" (did you mean {guess!r}?)" if guess else ""
                raise GpuCiError(
                    f"{rel}: unknown top-level key {top!r}{hint}; an ESC environment "
                    "definition holds imports and values"
                )
        imports = doc.get("imports") or []
        if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
            raise GpuCiError(
                f"{rel}: imports must be a list of ESC environment names, like "
                "imports: [gpu-ci/common]"
            )
        merged: Tree = {}
        for imported in imports:
            merged = merge_trees(merged, self.pulumi_config(imported, rel, (*chain, key)))
        values = doc.get("values") or {}
        if not isinstance(values, dict):
            raise GpuCiError(f"{rel}: values must be a mapping (pulumiConfig: goes in it)")
        own = values.get("pulumiConfig") or {}
        if not isinstance(own, dict):
            raise GpuCiError(
                f"{rel}: values.pulumiConfig must be a mapping of config keys to values, "
                "like oci:region: us-ashburn-1"
            )
        tree = {str(k): _tree(v, f"values.pulumiConfig.{k}", name, rel) for k, v in own.items()}
        self.definitions[key] = merge_trees(merged, tree)
        return self.definitions[key]


def _read(path: Path, rel: str, root: Path) -> Any:
    """The file as stack files are read (YAML 1.2, through the careful reader: inside the
    project `root` once symlinks are followed, bounded), errors naming `rel`."""
    try:
        return read_document(path, root, f"the project folder {root}").data
    except GpuCiError as err:
        message = str(err)
        if message.startswith(f"{path.name}:"):
            message = rel + message[len(path.name) :]
        raise GpuCiError(message) from None


def _tree(value: Any, where: str, source: str, rel: str) -> Tree | Leaf:
    """An environment's value: mappings stay mappings (they merge); the rest are leaves."""
    if isinstance(value, dict) and not any(str(k).startswith("fn::") for k in value):
        return {str(k): _tree(v, f"{where}.{k}", source, rel) for k, v in value.items()}
    return Leaf(_evaluated(value, where, rel), source)


def _evaluated(value: Any, where: str, rel: str) -> Any:
    """`value` as plain JSON with EscSecret for `fn::secret`; what needs ESC is refused."""
    if isinstance(value, dict):
        functions = [str(k) for k in value if str(k).startswith("fn::")]
        if functions and len(value) > 1:
            raise GpuCiError(
                f"{rel}: {where} has {functions[0]} beside other keys; a function call is "
                "the only key of its mapping"
            )
        if functions == ["fn::secret"]:
            return _secret(value["fn::secret"], where, rel)
        if functions:
            raise GpuCiError(
                f"{rel}: {where} uses {functions[0]}, which the offline plan cannot evaluate; "
                "write the value it gives in this file (a placeholder under fn::secret, for "
                "a secret)"
            )
        return {str(k): _evaluated(v, f"{where}.{k}", rel) for k, v in value.items()}
    if isinstance(value, list):
        return [_evaluated(v, f"{where}[{i}]", rel) for i, v in enumerate(value)]
    if isinstance(value, str):
        found = _INTERPOLATION.search(value)
        if found:
            raise GpuCiError(
                f"{rel}: {where} interpolates {found.group()}, which the offline plan cannot "
                "evaluate; write the value itself in this file (a placeholder under "
                "fn::secret, for a secret)"
            )
        return value.replace("$${", "${")
    return value


def _secret(value: Any, where: str, rel: str) -> EscSecret:
    """`fn::secret: TEXT`, or the `fn::secret: {ciphertext: ...}` that ESC saves."""
    if isinstance(value, dict) and set(value) == {"ciphertext"}:
        value = value["ciphertext"]
    if not isinstance(value, str):
        raise GpuCiError(
            f"{rel}: {where}: fn::secret takes a string (here, a placeholder), like "
            "fn::secret: placeholder"
        )
    return EscSecret(value)


def merge_trees(base: Tree, patch: Tree) -> Tree:
    """ESC's merge: `patch` over `base`, mappings key by key, anything else replaced."""
    out = dict(base)
    for key, new in patch.items():
        old = out.get(key)
        out[key] = merge_trees(old, new) if isinstance(old, dict) and isinstance(new, dict) else new
    return out
