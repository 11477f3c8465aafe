"""The parameter models' refusals, reported at the config keys their values came from.

`prepare` builds every host, runner and cluster parameter model from the validated config
before anything registers; `ParamCheck` collects what they refuse as problems at the keys
`ParamKeys` names (`stacks/config/param_keys.py`), all in one message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from core.errors import GpuCiError
from stacks.config.problems import Problem, credential_at, shown_given, top_key
from stacks.config.stack import StackConfig

_T = TypeVar("_T")


@dataclass(frozen=True)
class ParamKeys:
    """Where a part of the stack's parameter models (components/host/*_params.py) come from.

    The models are built from the validated config before anything registers; a value
    they refuse is reported at the config key it came from. `fields` maps `Model.field`,
    or a bare `field` (any model), to that full key (`gpu-ci:runner.group`); anything
    else is reported at `default`. `hints` add, by the same names, how to fix it.
    """

    default: str
    fields: Mapping[str, str] = dataclasses.field(default_factory=dict)
    hints: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def lookup(self, model: str, name: str) -> tuple[str, str | None]:
        key = self.fields.get(f"{model}.{name}") or self.fields.get(name) or self.default
        return key, self.hints.get(f"{model}.{name}") or self.hints.get(name)


def param_problems(
    error: ValidationError, keys: ParamKeys, secret_keys: Iterable[str]
) -> list[Problem]:
    """A parameter model's validation error as problems at the config keys it came from."""
    secret = set(secret_keys)
    seen: dict[str, Problem] = {}
    for err in error.errors(include_url=False):
        loc = err["loc"]
        key, hint = keys.lookup(error.title, str(loc[0]) if loc else "")
        key += "".join(f"[{part}]" for part in loc[1:] if isinstance(part, int))
        message = err["msg"].removeprefix("Value error, ")
        if hint:
            message = f"{message}; {hint}"
        given = err.get("input")
        shown_already = isinstance(given, str) and given in message  # a name it quotes
        if loc and given is not None and err["type"] != "missing" and not shown_already:
            # At a top-level key (the default: what the keys name no field of) the value's
            # own key is not known; a plain credential was refused before any model is built.
            credential = None if key == top_key(key) else credential_at(StackConfig, key)
            shown = shown_given(given, key, secret, credential)
            message = f"{message} [given: {shown}]"
        problem = Problem(key, message)
        seen.setdefault(str(problem), problem)
    return sorted(seen.values(), key=lambda p: p.key)


class ParamCheck:
    """Builds parameter models from the validated config, collecting what they refuse.

    Each `build` runs one constructor; a refusal becomes problems at the config keys of
    `keys` and the build returns None, so every part is checked in one pass.
    """

    def __init__(self, secret_keys: Iterable[str] = ()) -> None:
        self.secret_keys = frozenset(secret_keys)
        self.problems: list[Problem] = []

    def build(
        self, keys: ParamKeys, make: Callable[..., _T], *args: Any, **kwargs: Any
    ) -> _T | None:
        try:
            return make(*args, **kwargs)
        except ValidationError as err:
            self.problems += param_problems(err, keys, self.secret_keys)
        except (GpuCiError, ValueError) as err:  # a rule outside a model (kind layouts)
            self.problems.append(Problem(keys.default, str(err)))
        return None
