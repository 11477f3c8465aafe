"""Read `Pulumi.yaml` and `Pulumi.<stack>.yaml` the way the Pulumi CLI hands them over.

The CLI passes the program a flat map of `namespace:key` to strings (objects as JSON) and a
list of secret keys. `secure:` values cannot be decrypted offline; they become placeholders
and their top-level keys are marked secret, exactly as `pulumi up` marks them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from stacks import yaml_text
from stacks.errors import GpuCiError


@dataclass(frozen=True)
class StackFile:
    project: str
    stack: str
    config: dict[str, str]
    secret_keys: frozenset[str]


def _load_yaml(path: Path) -> Any:
    try:
        return yaml_text.load(path.read_text())
    except FileNotFoundError:
        raise GpuCiError(f"{path.name}: no such file in {path.parent}") from None
    except yaml.YAMLError as err:
        raise GpuCiError(f"{path.name}: not valid YAML: {err}") from None


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


def _as_cli_string(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def project_name(root: Path) -> str:
    doc = _load_yaml(root / "Pulumi.yaml")
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise GpuCiError("Pulumi.yaml: `name` (the project name) is missing")
    return str(doc["name"])


def read_stack_file(root: Path, stack: str) -> StackFile:
    """The config of `Pulumi.<stack>.yaml` as the CLI would pass it to the program."""
    path = root / f"Pulumi.{stack}.yaml"
    if not path.exists():
        stacks = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in root.glob("Pulumi.*.yaml"))
        raise GpuCiError(
            f"no stack {stack!r}: {path.name} does not exist (stacks here: {', '.join(stacks)})"
        )
    doc = _load_yaml(path) or {}
    raw = doc.get("config") or {} if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        raise GpuCiError(f"{path.name}: `config` must be a mapping of namespace:key to values")
    config: dict[str, str] = {}
    secret: set[str] = set()
    for key, value in raw.items():
        if ":" not in str(key):
            raise GpuCiError(
                f"{path.name}: config key {key!r} needs a namespace, like gpu-ci:{key}"
            )
        found: list[str] = []
        config[str(key)] = _as_cli_string(_strip_secure(value, str(key), found))
        if found:
            secret.add(str(key))
    return StackFile(project_name(root), stack, config, frozenset(secret))
