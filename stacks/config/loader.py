"""Read the `gpu-ci:` namespace from Pulumi's config and validate it in one pass.

`pulumi up` hands the program a flat map of `namespace:key` to strings (objects as JSON);
the offline plan builds the same map from `Pulumi.<stack>.yaml`. Both go through
`load_config`, so a bad key fails identically in both, before any resource registers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

import pulumi
from pydantic import BaseModel, SecretStr, ValidationError
from pydantic.fields import FieldInfo

from components.config_base import CREDENTIAL_FILE
from core import read_json
from core.errors import GpuCiError
from core.read_limits import STACK_FILE
from stacks.config.namespaces import check_other_keys
from stacks.config.problems import Problem, _unwrap, holds_credential, problems_from
from stacks.config.recipe import PROJECT_ROOT, recipe_problems
from stacks.config.stack import NAMESPACE, StackConfig


def what_exists(late: bool) -> str:
    """What a refusal says was created: nothing, or (`late`: found while resources
    registered, by a rule no check before them ran) what registered before it."""
    return (
        "Resources registered before this was found may exist." if late else "Nothing was created."
    )


class ConfigError(GpuCiError):
    """The stack config has problems; the message lists every one by its key.

    `warnings` (keys nothing reads) come in the message, after the problems: a config that
    fails is not run, so they would not be logged."""

    def __init__(
        self,
        stack: str,
        problems: list[Problem],
        *,
        late: bool = False,
        warnings: Sequence[str] = (),
    ) -> None:
        self.problems = problems
        self.warnings = list(warnings)
        count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
        ours = all(p.key.split(":")[0] == NAMESPACE for p in problems)
        lines = [f"stack {stack!r}: invalid {f'{NAMESPACE} ' if ours else ''}config ({count}):"]
        lines += ["  - " + str(p).replace("\n", "\n    ") for p in problems]
        lines += [f"warning: {w}" for w in self.warnings]
        lines.append(
            f"{what_exists(late)} Fix each key in Pulumi.{stack}.yaml "
            "(or with `pulumi config set --path`) and run again."
        )
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class RawConfig:
    """The namespace's keys as Pulumi passes them: key (no namespace) -> parsed value;
    and the keys of every other namespace (`oci:region`), checked against what reads them.

    `secret_leaves`: where the stack file itself was read (the offline plan, the PR
    workflow), the full path of every value that is itself a secret (`secure:`, ESC's
    `fn::secret`); None under `pulumi up`, which says only which top-level keys are secret.
    `esc_leaves`: the paths an ESC environment gave, each with the environments imported."""

    values: dict[str, Any]
    secret_keys: frozenset[str] = field(default_factory=frozenset)
    other_keys: frozenset[str] = field(default_factory=frozenset)
    secret_leaves: frozenset[str] | None = None
    esc_leaves: Mapping[str, str] = field(default_factory=dict)


def _parse(value: Any, key: str) -> Any:
    """Pulumi passes objects and arrays as JSON text and everything else as strings (read
    by the careful reader: nesting past a stack file's bound is one message naming `key`)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return read_json.parse(value, name=f"config key {key}", limits=STACK_FILE)
        except json.JSONDecodeError:
            return value
    return value


def raw_from_flat(
    flat: Mapping[str, Any],
    secret_keys: set[str] | frozenset[str],
    *,
    secret_leaves: Iterable[str] | None = None,
    esc_leaves: Mapping[str, str] | None = None,
) -> RawConfig:
    """Select this namespace's keys from a flat `namespace:key` map (and, read from a
    stack file, which of its values are secrets themselves: `RawConfig`)."""
    values: dict[str, Any] = {}
    others: set[str] = set()
    for full_key, value in flat.items():
        namespace, _, key = full_key.partition(":")
        key = key.removeprefix("config:")  # the legacy `ns:config:key` form
        if namespace == NAMESPACE and key:
            values[key] = _parse(value, full_key)
        elif namespace != NAMESPACE:
            others.add(full_key)
    secret = frozenset(_ours(k) for k in secret_keys if k.startswith(f"{NAMESPACE}:"))
    leaves = None if secret_leaves is None else frozenset(map(_ours, secret_leaves))
    given = {_ours(path): envs for path, envs in (esc_leaves or {}).items()}
    return RawConfig(values, secret, frozenset(others), leaves, given)


def _ours(key: str) -> str:
    """`gpu-ci:config:KEY...` (the legacy form) as `gpu-ci:KEY...`; other keys as given."""
    prefix = f"{NAMESPACE}:"
    return prefix + key.removeprefix(prefix).removeprefix("config:")


def _credentials_given(
    annotation: Any, value: Any, path: str, field: FieldInfo | None = None
) -> list[tuple[str, FieldInfo | None]]:
    """The credential keys (`SecretStr` fields) that `value` sets, by full key.

    Follows the value through models (every member of a union: the keys are the user's,
    whichever member applies), lists and dicts. Any value at a credential key counts, of
    whatever type; a model given as text sets none (it fails validation, unechoed).
    """
    if value is None or not holds_credential(annotation):
        return []
    types = _unwrap(annotation)
    if SecretStr in types:
        return [(path, field)]
    found: list[tuple[str, FieldInfo | None]] = []
    models = [t for t in types if isinstance(t, type) and issubclass(t, BaseModel)]
    if models and isinstance(value, dict):
        for key, item in value.items():
            fields = [m.model_fields[key] for m in models if key in m.model_fields]
            for sub in fields:
                found += _credentials_given(sub.annotation, item, f"{path}.{key}", sub)
    for container in types:
        args = get_args(container)
        if get_origin(container) is list and args and isinstance(value, list):
            for index, item in enumerate(value):
                found += _credentials_given(args[0], item, f"{path}[{index}]")
        if get_origin(container) is dict and len(args) == 2 and isinstance(value, dict):
            for key, item in value.items():
                found += _credentials_given(args[1], item, f"{path}.{key}")
    unique: dict[str, FieldInfo | None] = {}
    for key_path, leaf in found:  # union members may share a field: one problem per key
        unique.setdefault(key_path, leaf)
    return list(unique.items())


def _set_from(field: FieldInfo | None) -> str:
    """How a credential is typed in: `< FILE` for a file (a PEM key), else `VALUE`."""
    extra = field.json_schema_extra if field is not None else None
    source = extra.get(CREDENTIAL_FILE) if isinstance(extra, dict) else None
    return f"< {source}" if isinstance(source, str) else "VALUE"


def _plain_credentials(raw: RawConfig) -> list[Problem]:
    """Credentials given in plain config: refused, with the command that stores them.

    Pulumi marks a whole top-level key secret when any path under it is set with
    `--secret` (a stack file's nested `secure:` values; an ESC value Pulumi marks
    secret), so under `pulumi up` a credential counts as secret when its top-level key
    is. Where the stack file itself was read (`raw.secret_leaves`), each credential must
    be a secret itself: a plain PEM beside a `secure:` one sits in a committed file.
    """
    problems = []
    for key in sorted(raw.values):
        field = StackConfig.model_fields.get(key)
        top = f"{NAMESPACE}:{key}"
        if field is None or (raw.secret_leaves is None and top in raw.secret_keys):
            continue
        for path, leaf in _credentials_given(field.annotation, raw.values[key], top, field):
            if raw.secret_leaves is None or path not in raw.secret_leaves:
                problems.append(_plain_problem(path, leaf, raw.esc_leaves.get(path)))
    return problems


def _plain_problem(path: str, leaf: FieldInfo | None, environments: str | None) -> Problem:
    """The fix of a plain credential: stored as a secret where it is given."""
    if environments is None:
        return Problem(
            path,
            "is a credential in plain text: set it with "
            f"`pulumi config set --secret --path {path} {_set_from(leaf)}`",
        )
    return Problem(
        path,
        f"is a credential in plain text, given by ESC environment {environments}: make "
        "it a secret in the definition that sets it (`fn::secret: ...`, or `pulumi env set "
        "ENV PATH --secret`), or set it here with "
        f"`pulumi config set --secret --path {path} {_set_from(leaf)}`",
    )


def _misplaced_secrets(raw: RawConfig) -> list[Problem]:
    """Secret keys whose values would end up in plain sight (names, tags, rules).

    Credentials are typed `SecretStr` and stay Pulumi secrets to the end. A key stored
    with `--secret` that holds no credential would be used as plain text, so it is an
    error rather than a silent downgrade.
    """
    problems = []
    for full_key in sorted(raw.secret_keys):
        key = full_key.partition(":")[2]
        field = StackConfig.model_fields.get(key)
        if field is not None and not holds_credential(field.annotation):
            problems.append(
                Problem(
                    full_key,
                    "is stored as a secret, but it holds no credential and is used in plain "
                    "text (names, tags, rules); store it in plain config with "
                    f"`pulumi config set {full_key} VALUE`",
                )
            )
    return problems


_LAYER_KEYS = ("vm", "arc", "host", "runner", "cluster", "platform")
"""Keys that ask for resources (or, invalid, say so); `capacity` does unless 'none'."""
_NOTHING = (
    "so this stack would create nothing, and `pulumi up` on a deployed stack would delete "
    f"every resource; set {NAMESPACE}:capacity ('vm' or 'arc'), {NAMESPACE}:host or "
    f"{NAMESPACE}:platform (Pulumi.workstation.yaml is the smallest stack)"
)


def _no_layer(raw: RawConfig) -> list[Problem]:
    """A config that asks for no resources: most likely lost (a stack file not found, a
    misspelt namespace), never a plan of "nothing" that deletes what is deployed."""
    if raw.values.get("capacity", "none") != "none" or any(k in raw.values for k in _LAYER_KEYS):
        return []
    if not raw.values:
        return [Problem(NAMESPACE, f"no {NAMESPACE}:* key is set, {_NOTHING}")]
    return [
        Problem(
            NAMESPACE,
            f"no layer is set (gpu-ci:capacity is 'none', and there is no gpu-ci:host or "
            f"gpu-ci:platform), {_NOTHING}",
        )
    ]


def load_config(raw: RawConfig, stack: str, project_dir: Path = PROJECT_ROOT) -> StackConfig:
    """Validate every key; raise one ConfigError listing all problems.

    The recipe is part of the pass: when the config is invalid, whatever the recipe's own
    keys already show to be wrong is listed too (a valid config's recipe is resolved by
    `prepare`, with the parameter models)."""
    problems = _misplaced_secrets(raw)
    flagged = {p.key for p in problems}
    others = check_other_keys(raw.other_keys)
    problems += _plain_credentials(raw) + _no_layer(raw) + others.problems
    try:
        config = StackConfig.model_validate(raw.values)
    except ValidationError as err:
        found = problems_from(err, StackConfig, NAMESPACE, set(raw.secret_keys))
        # A top-level key is a model or a scalar (no list), so its name ends at the first '.'.
        problems += [p for p in found if p.key.split(".")[0] not in flagged]
        config = None
    if problems or config is None:
        if "platform" in raw.values:  # and what its recipe refuses (nothing if it is invalid)
            problems += recipe_problems(raw.values, project_dir)
        raise ConfigError(stack, sorted(problems, key=lambda p: p.key), warnings=others.warnings)
    _warn_in_run(others.warnings)
    return config


def _warn_in_run(warnings: list[str]) -> None:
    """Log each warning as the program's other warnings are (`pulumi.log.warn`: `pulumi
    preview` and the offline plan print `warning: ...`), from the program Pulumi runs.

    Pulumi runs a program in its event loop; a check outside it (the offline plan loads
    the stack file's config before it runs the program, to plan referenced stacks first)
    leaves the warnings to the run, so each is printed once."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    for warning in warnings:
        pulumi.log.warn(warning)
