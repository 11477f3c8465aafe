"""Read the `gpu-ci:` namespace from Pulumi's config and validate it in one pass.

`pulumi up` hands the program a flat map of `namespace:key` to strings (objects as JSON);
the offline plan builds the same map from `Pulumi.<stack>.yaml`. Both go through
`load_config`, so a bad key fails identically in both, before any resource registers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import BaseModel, SecretStr, ValidationError

from stacks.config.problems import Problem, problems_from
from stacks.config.stack import NAMESPACE, StackConfig
from stacks.errors import GpuCiError


class ConfigError(GpuCiError):
    """The stack config has problems; the message lists every one by its key."""

    def __init__(self, stack: str, problems: list[Problem]) -> None:
        self.problems = problems
        count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
        lines = [f"stack {stack!r}: invalid {NAMESPACE} config ({count}):"]
        lines += [f"  - {p}" for p in problems]
        lines.append(
            f"Nothing was created. Fix each key in Pulumi.{stack}.yaml "
            "(or with `pulumi config set --path`) and run again."
        )
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class RawConfig:
    """The namespace's keys as Pulumi passes them: key (no namespace) -> parsed value."""

    values: dict[str, Any]
    secret_keys: frozenset[str] = field(default_factory=frozenset)


def _parse(value: Any) -> Any:
    """Pulumi passes objects and arrays as JSON text and everything else as strings."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def raw_from_flat(flat: Mapping[str, Any], secret_keys: set[str] | frozenset[str]) -> RawConfig:
    """Select this namespace's keys from a flat `namespace:key` map."""
    values: dict[str, Any] = {}
    for full_key, value in flat.items():
        namespace, _, key = full_key.partition(":")
        key = key.removeprefix("config:")  # the legacy `ns:config:key` form
        if namespace == NAMESPACE and key:
            values[key] = _parse(value)
    return RawConfig(values, frozenset(k for k in secret_keys if k.startswith(f"{NAMESPACE}:")))


def runtime_raw_config() -> RawConfig:
    """The namespace as the running Pulumi program sees it (CLI or mocks)."""
    from pulumi.runtime import config as runtime_config  # noqa: PLC0415  (keeps import cheap)

    flat: dict[str, Any] = dict(runtime_config.get_config_env())
    flat.update(runtime_config.CONFIG.get())
    secret = set(runtime_config.get_config_secret_keys_env()) | runtime_config._SECRET_KEYS.get()
    return raw_from_flat(flat, secret)


def _holds_secret(annotation: Any) -> bool:
    """Whether a config field's type has a credential (`SecretStr`) anywhere inside."""
    if annotation is SecretStr:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return any(_holds_secret(f.annotation) for f in annotation.model_fields.values())
    return any(_holds_secret(a) for a in get_args(annotation))


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
        if field is not None and not _holds_secret(field.annotation):
            problems.append(
                Problem(
                    full_key,
                    "is stored as a secret, but it holds no credential and is used in plain "
                    "text (names, tags, rules); store it in plain config with "
                    f"`pulumi config set {full_key} VALUE`",
                )
            )
    return problems


def load_config(raw: RawConfig, stack: str) -> StackConfig:
    """Validate every key; raise one ConfigError listing all problems."""
    problems = _misplaced_secrets(raw)
    flagged = {p.key for p in problems}
    try:
        config = StackConfig.model_validate(raw.values)
    except ValidationError as err:
        found = problems_from(err, StackConfig, NAMESPACE, set(raw.secret_keys))
        problems += [p for p in found if p.key.split(".")[0].split("[")[0] not in flagged]
        config = None
    if problems or config is None:
        raise ConfigError(stack, sorted(problems, key=lambda p: p.key))
    return config
