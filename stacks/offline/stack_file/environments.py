"""The Pulumi ESC environments a stack file imports, read offline from `esc/`.

`pulumi up` opens each environment a stack file names under `environment:` and merges the
environment's `values.pulumiConfig` into the stack's config. The offline plan cannot reach
ESC, so it reads each environment's definition (the YAML `pulumi env edit PROJECT/ENV`
shows) from the checkout: `esc/PROJECT/ENV.yaml` (`esc/default/ENV.yaml` for a name
without a project), committed with placeholders where the real environment has secrets.

It merges them as the Pulumi CLI does (pulumi/pulumi sdk/go/common/workspace/config.go,
`mergeConfig`: "Prefers stack values over env values"; sdk/go/common/resource/config/
object.go, `Merge`; ESC's docs: "the explicit stack value wins"):

- the environments in the order listed, each one's own `imports:` under its `values`,
  later values winning, objects merged key by key;
- then into the stack file's config, the stack file winning: a key it lacks is added
  whole; a key both set, if both values are objects, is merged key by key with the stack
  file's values kept; otherwise the stack file's value stays as it is.

A `pulumiConfig` key is one config key, dots and all: the CLI does not read
`gpu-ci:runner.githubApp.privateKey` as a path into `gpu-ci:runner`, so such a key in this
project's namespace is refused here, with the nested form to write instead. An
`fn::secret` value becomes a secret placeholder, `offline-placeholder:PATH:DIGEST`, as a
`secure:` value in a stack file does, and its top-level key is secret.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core import read_json
from core.errors import GpuCiError
from core.read_limits import STACK_FILE
from stacks.offline.stack_file.cli_values import as_cli_string, is_secure, strip_secure
from stacks.offline.stack_file.esc_definitions import (
    EnvironmentReader,
    EscSecret,
    Leaf,
    Tree,
    merge_trees,
)


def apply_environments(
    root: Path,
    stack_file: str,
    project: str,
    document: Any,
    raw: dict[Any, Any],
    config: dict[str, str],
    secret: set[str],
) -> tuple[str, ...]:
    """Merge the environments `document` imports into `config` and `secret` (the stack
    file's own, as read from `raw`, its `config:` mapping), as `pulumi up` would; return
    one note per environment read, saying which keys it gave."""
    names = document.get("environment") if isinstance(document, dict) else None
    if names is None:
        return ()
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise GpuCiError(
            f"{stack_file}: `environment` must be a list of ESC environment names, like "
            "environment: [gpu-ci/dev]"
        )
    reader = EnvironmentReader(root)
    merged: Tree = {}
    for name in names:
        merged = merge_trees(merged, reader.pulumi_config(name, stack_file, ()))
    by_key = _config_keys(merged, project, reader)
    merger = _StackMerge()
    stack_keys = {_normal_key(str(k)): str(k) for k in raw}
    for key in sorted(by_key):
        tree = by_key[key]
        own = stack_keys.get(key)
        if own is None:
            merger.added(tree, key)
            value, is_secret = _finish(_plain(tree), key)
            config[key] = _cli_text(value)
            if is_secret:
                secret.add(key)
        elif isinstance(raw[own], dict) and not is_secure(raw[own]) and isinstance(tree, dict):
            mine = read_json.load(config[own], name=f"{stack_file}: {own}", limits=STACK_FILE)
            value, is_secret = _finish(merger.under(mine, tree, own), own)
            config[own] = _cli_text(value)
            if is_secret:
                secret.add(own)
        else:
            merger.kept(own, tree)
    return tuple(merger.note(stack_file, name, reader.files[name]) for name in reader.files)


def _normal_key(key: str) -> str:
    """`ns:config:name` (the legacy form) is the key `ns:name`, as the CLI parses it."""
    parts = key.split(":")
    if len(parts) == 3 and parts[1] == "config":
        return f"{parts[0]}:{parts[2]}"
    return key


def _config_keys(merged: Tree, project: str, reader: EnvironmentReader) -> dict[str, Tree | Leaf]:
    """The merged `pulumiConfig` by config key, as the CLI parses its keys."""
    out: dict[str, Tree | Leaf] = {}
    given: dict[str, str] = {}
    for raw_key, tree in merged.items():
        rel = ", ".join(sorted({reader.files[s] for s in _sources(tree)})) or ", ".join(
            reader.files.values()
        )
        parts = raw_key.split(":")
        if len(parts) == 1:
            key = f"{project}:{raw_key}"  # the CLI's default namespace: the project's name
        elif len(parts) in (2, 3) and all(parts) and (len(parts) == 2 or parts[1] == "config"):
            key = _normal_key(raw_key)
        else:
            raise GpuCiError(
                f"{rel}: values.pulumiConfig key {raw_key!r} is not a config key; write "
                "namespace:key, like gpu-ci:owner"
            )
        namespace, name = key.split(":")
        if namespace == project and ("." in name or "[" in name):
            raise GpuCiError(_dotted_key(rel, raw_key, namespace, name))
        if key in given:
            raise GpuCiError(
                f"{rel}: values.pulumiConfig gives {key} twice (as {given[key]} and "
                f"{raw_key}); keep one"
            )
        given[key] = raw_key
        out[key] = tree
    return out


def _dotted_key(rel: str, raw_key: str, namespace: str, name: str) -> str:
    head, _, rest = name.partition(".")
    nested = f"{namespace}:{head}: ..."
    if rest and "[" not in name:
        inner = "..."
        for part in reversed(rest.split(".")):
            inner = f"{{{part}: {inner}}}"
        nested = f"{namespace}:{head}: {inner}"
    return (
        f"{rel}: values.pulumiConfig key {raw_key!r} is one config key to Pulumi, dots and "
        f"all (not a path), so the program would get an unknown key {name!r}; nest it "
        f"instead: {nested}"
    )


def _plain(tree: Tree | Leaf) -> Any:
    """`tree` as plain JSON, secrets as `{"secure": ...}` (placeholders once finished)."""
    if isinstance(tree, dict):
        return {k: _plain(v) for k, v in tree.items()}
    return _secured(tree.value)


def _secured(value: Any) -> Any:
    if isinstance(value, EscSecret):
        return {"secure": value.text}
    if isinstance(value, dict):
        return {k: _secured(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_secured(v) for v in value]
    return value


def _finish(value: Any, key: str) -> tuple[Any, bool]:
    """Secrets replaced by `offline-placeholder:PATH:DIGEST`, and whether there was one."""
    found: list[str] = []
    done = strip_secure(value, key, found)
    return done, bool(found)


def _cli_text(value: Any) -> str:
    """The string the CLI passes the program for a config value from an environment."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # Go writes a whole float64 without a fraction
    return as_cli_string(value)


def _sources(tree: Tree | Leaf) -> set[str]:
    if isinstance(tree, dict):
        return set().union(*(_sources(v) for v in tree.values())) if tree else set()
    return {tree.source}


def _has_secret(value: Any) -> bool:
    if isinstance(value, EscSecret):
        return True
    if isinstance(value, Leaf):
        return _has_secret(value.value)
    if isinstance(value, dict):
        return any(_has_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_secret(v) for v in value)
    return False


class _StackMerge:
    """Merges environment values under the stack file's, noting what came from where."""

    def __init__(self) -> None:
        self.given: dict[str, list[str]] = {}  # environment -> paths it set
        self.kept_paths: dict[str, list[str]] = {}  # environment -> paths the stack file kept

    def added(self, tree: Tree | Leaf, path: str) -> None:
        """`tree` goes in at `path`, where the stack file has nothing: note who gave it
        (each part's own environment, where several did)."""
        sources = _sources(tree)
        if len(sources) > 1 and isinstance(tree, dict):
            for key, sub in tree.items():
                self.added(sub, f"{path}.{key}")
            return
        label = path
        if isinstance(tree, Leaf) and isinstance(tree.value, EscSecret):
            label = f"{path} (secret, offline placeholder)"
        elif _has_secret(tree):
            label = f"{path} (its secrets as offline placeholders)"
        for source in sources:
            self.given.setdefault(source, []).append(label)

    def kept(self, path: str, tree: Tree | Leaf) -> None:
        for source in _sources(tree):
            self.kept_paths.setdefault(source, []).append(path)

    def under(self, stack: Any, tree: Tree | Leaf, path: str) -> Any:
        """The stack file's `stack` at `path`, with what `tree` adds where it has nothing."""
        if not (isinstance(stack, dict) and isinstance(tree, dict)):
            self.kept(path, tree)
            return stack
        out = dict(stack)
        for key, sub in tree.items():
            where = f"{path}.{key}"
            if key in stack:
                out[key] = self.under(stack[key], sub, where)
            else:
                self.added(sub, where)
                out[key] = _plain(sub)
        return out

    def note(self, stack_file: str, name: str, rel: str) -> str:
        given, kept = sorted(self.given.get(name, [])), sorted(self.kept_paths.get(name, []))
        read = f"read offline from {rel}"
        wins = ""
        if kept:
            verb = "wins" if len(kept) == 1 else "win"
            wins = f"; {stack_file}'s own {', '.join(kept)} {verb} over it"
        if given:
            return f"{stack_file} gets {', '.join(given)} from ESC environment {name}, {read}{wins}"
        what = wins.removeprefix("; ") if kept else "it sets no values.pulumiConfig here"
        return f"{stack_file} gets nothing from ESC environment {name} ({read}): {what}"
