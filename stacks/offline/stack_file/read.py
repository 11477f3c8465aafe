"""Read `Pulumi.yaml` and `Pulumi.<stack>.yaml` the way the Pulumi CLI hands them over.

The CLI passes the program a flat map of `namespace:key` to strings (objects as JSON) and a
list of secret keys. `secure:` values cannot be decrypted offline; they become placeholders
and their top-level keys are marked secret, exactly as `pulumi up` marks them.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import GpuCiError, did_you_mean
from stacks.offline.stack_file.cli_values import as_cli_string, strip_secure
from stacks.offline.stack_file.environments import apply_environments
from stacks.offline.stack_file.yaml_document import Document, read_document


@dataclass(frozen=True)
class StackFile:
    project: str
    stack: str
    config: dict[str, str]
    secret_keys: frozenset[str]
    # One line per Pulumi ESC environment read (stacks/offline/stack_file/environments.py):
    # which keys it gave.
    notes: tuple[str, ...] = ()
    # The full path of each value that is itself a secret (`secure:`, ESC's `fn::secret`):
    # what Pulumi cannot tell apart from its plain neighbours once their top-level key is
    # secret (stacks/config/loader.py refuses a plain credential among them).
    secret_leaves: frozenset[str] = frozenset()
    # The paths an ESC environment gave (not the file), each with the environments imported.
    esc_leaves: Mapping[str, str] = field(default_factory=dict)


def _load_yaml(path: Path) -> Any:
    return read_document(path).data


# The names the Pulumi CLI takes (pulumi/pulumi sdk/go/common/tokens): a project name is
# non-empty, at most 100 characters and `IsName` (project.go ValidateProjectName, commit
# e7aa7c48; names.go NameRegexpPattern `[A-Za-z_.][A-Za-z0-9_.-]*`, commit 1647f904); a stack
# name is 1 to 100 of `[A-Za-z0-9_.-]` (stack_name.go ParseStackName, commit 78757ef6). The
# program puts both in names, tags and the VMs' user data: anything else is refused here.
PROJECT_NAME = re.compile(r"[A-Za-z_.][A-Za-z0-9_.-]{0,99}")
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def _shown(name: str) -> str:
    return repr(name if len(name) <= 60 else name[:60] + "...")


def project_name(root: Path) -> str:
    doc = _load_yaml(root / "Pulumi.yaml")
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise GpuCiError("Pulumi.yaml: `name` (the project name) is missing")
    name = str(doc["name"])
    if not PROJECT_NAME.fullmatch(name):
        raise GpuCiError(
            f"Pulumi.yaml: the project name {_shown(name)} is not one the Pulumi CLI takes: "
            "1 to 100 letters, digits, '_', '.' or '-', not starting with a digit or '-'; "
            "rename it"
        )
    return name


PLACEHOLDER = "offline-placeholder:"
"""How a secret's value starts offline (stacks/offline/stack_file/cli_values.py):
`PLACEHOLDER` PATH:DIGEST."""
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
    if not STACK_NAME.fullmatch(stack):
        raise GpuCiError(
            f"stack name {_shown(stack)} is not one the Pulumi CLI takes: 1 to 100 letters, "
            "digits, '_', '.' or '-'; name the stack (and its Pulumi.<stack>.yaml) so"
        )
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
    own = {path for key, value in config.items() for path, _ in _leaves(key, value)}
    notes = apply_environments(root, path.name, project, document.data, raw, config, secret)
    leaves = [leaf for key, value in config.items() for leaf in _leaves(key, value)]
    imported = ", ".join(document.data.get("environment") or ()) if notes else ""
    return StackFile(
        project,
        stack,
        config,
        frozenset(secret),
        notes,
        frozenset(p for p, v in leaves if str(v).startswith(f"{PLACEHOLDER}{p}:")),
        {p: imported for p, _ in leaves if p not in own},
    )


def _leaves(key: str, text: str) -> list[tuple[str, Any]]:
    """The values under config key `key` (objects arrive as JSON), each by its full path
    (`gpu-ci:host.proxy.privateKey`, `...scaleSets[0]...`: as `secure:` paths are written)."""
    value: Any = text
    if text[:1] in ("{", "["):  # as the program parses it (stacks/config/loader.py)
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(text)
    found: list[tuple[str, Any]] = []
    todo = [(key, value)]
    while todo:  # a loop, not recursion: the depth is the file's (bounded when it was read)
        path, node = todo.pop()
        if isinstance(node, dict):
            todo += [(f"{path}.{k}", v) for k, v in node.items()]
        elif isinstance(node, list):
            todo += [(f"{path}[{i}]", v) for i, v in enumerate(node)]
        else:
            found.append((path, node))
    return found
