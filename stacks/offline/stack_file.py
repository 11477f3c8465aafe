"""Read `Pulumi.yaml` and `Pulumi.<stack>.yaml` the way the Pulumi CLI hands them over.

The CLI passes the program a flat map of `namespace:key` to strings (objects as JSON) and a
list of secret keys. `secure:` values cannot be decrypted offline; they become placeholders
and their top-level keys are marked secret, exactly as `pulumi up` marks them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import GpuCiError, did_you_mean
from stacks.offline.cli_values import as_cli_string, strip_secure
from stacks.offline.environments import apply_environments
from stacks.offline.yaml_document import Document, read_document


@dataclass(frozen=True)
class StackFile:
    project: str
    stack: str
    config: dict[str, str]
    secret_keys: frozenset[str]
    # One line per Pulumi ESC environment read (stacks/offline/environments.py): which keys it gave.
    notes: tuple[str, ...] = ()


def _load_yaml(path: Path) -> Any:
    return read_document(path).data


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


def _config_section(name: str, document: Document) -> dict[Any, Any]:
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
    document = read_document(path)
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
        config[str(key)] = as_cli_string(strip_secure(value, str(key), found))
        if found:
            secret.add(str(key))
    # The `environment:` imports, merged in as `pulumi up` merges them (stack values win).
    project = project_name(root)
    notes = apply_environments(root, path.name, project, document.data, raw, config, secret)
    return StackFile(project, stack, config, frozenset(secret), notes)
