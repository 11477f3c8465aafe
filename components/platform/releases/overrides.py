"""Per-component platform overrides from stack config (`platform.set`): values to set,
components to skip, in aicr's `bundle --set` form, a list of strings::

    - gpu-operator:driver.enabled=true
    - gpu-operator:devicePlugin.config.name=my-config
    - kubeflow-trainer:enabled=false

`PATH` is a dotted Helm values path (`\\.` keeps a dot inside a key, e.g.
`nodeSelector.nvidia\\.com/gpu\\.present=true`); `VALUE` is typed as Helm's `--set` types it:
`true`/`false` in any case are booleans, `null` is null, an int64 without a leading zero is
an int, anything else is a string. `COMPONENT:enabled=BOOL` is aicr's switch, not a Helm
value. What `--set` cannot spell (a list, a string like "true") goes in a catalog of the
stack's own (`platform.catalogs`).

Every error names the override and the component, with a did-you-mean for a misspelt
component; `check` compares the overrides with the recipe they are applied to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.errors import GpuCiError, did_you_mean
from core.read_limits import STACK_FILE
from recipes.model.result import RecipeResult
from recipes.resolution.merge import deep_merge

ENABLED = "enabled"
# strconv.ParseInt(s, 10, 64)'s syntax: an optional sign, then ASCII digits (no underscores).
_INT = re.compile(r"[-+]?[0-9]+")
_INT64 = range(-(2**63), 2**63)
_SPLIT = re.compile(r"(?<!\\)\.")


class PlatformError(GpuCiError):
    """A platform override, manifest or runtime table problem the user can fix."""


class ComponentOverride(BaseModel):
    """What stack config changes about one component."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool | None = None
    """False skips the component; None (unset) or True keeps the recipe's choice."""
    values: dict[str, Any] = Field(default_factory=dict)
    """Helm values deep-merged over the component's hydrated values."""


class PlatformOverrides(BaseModel):
    """Overrides by component name (components not named are deployed as the recipe says)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    components: dict[str, ComponentOverride] = Field(default_factory=dict)

    # -- parsing ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, raw: Any) -> PlatformOverrides:
        """Overrides from stack config: None, or a list of `--set` strings."""
        if raw is None:
            return cls()
        if isinstance(raw, list | tuple):
            return cls.from_set(raw)
        raise PlatformError(
            "platform overrides: expected a list of COMPONENT:PATH=VALUE strings, "
            f"got {type(raw).__name__}"
        )

    @classmethod
    def from_set(cls, items: Iterable[Any]) -> PlatformOverrides:
        """aicr `--set comp:path=val` strings, applied in order (a later one wins)."""
        found: dict[str, ComponentOverride] = {}
        for item in items:
            component, path, value = split_set(item)
            old = found.get(component, ComponentOverride())
            if path == [ENABLED]:
                found[component] = old.model_copy(update={"enabled": _switch(item, value)})
            else:
                nested: Any = _typed(value)
                for key in reversed(path):
                    nested = {key: nested}
                merged = deep_merge(old.values, nested)
                found[component] = old.model_copy(update={"values": merged})
        return cls(components=found)

    def over(self, component: str, defaults: dict[str, Any]) -> PlatformOverrides:
        """These overrides on top of `defaults` for `component`: what config sets wins."""
        found = self.components.get(component, ComponentOverride())
        merged = found.model_copy(update={"values": deep_merge(defaults, found.values)})
        return self.model_copy(update={"components": {**self.components, component: merged}})

    def is_enabled(self, component: str) -> bool:
        """False when stack config disables `component`."""
        found = self.components.get(component)
        return found is None or found.enabled is not False

    def values_for(self, component: str) -> dict[str, Any]:
        """The values stack config sets for `component` (a fresh dict)."""
        found = self.components.get(component)
        return deep_merge({}, found.values) if found else {}

    def check(self, recipe: RecipeResult) -> None:
        """Fail on an override for a component the recipe does not deploy."""
        enabled = [c.name for c in recipe.componentRefs]
        disabled = list(recipe.metadata.disabledComponents)
        for name, found in self.components.items():
            if name in enabled:
                continue
            if name in disabled:
                if found.enabled is False and not found.values:
                    continue  # disabling what the recipe already disables is harmless
                raise PlatformError(
                    f"platform override {name!r}: the recipe disables this component "
                    "(overrides.enabled: false in its overlay), so stack config cannot "
                    "enable or configure it; enable it in the catalog overlay instead"
                )
            hint = did_you_mean(name, enabled + disabled)
            tail = (
                f" (did you mean {hint!r}?)"
                if hint
                else f"; components: {', '.join(sorted(enabled)) or 'none'}"
            )
            raise PlatformError(
                f"platform override {name!r}: component is not in the recipe "
                f"{'/'.join(recipe.metadata.appliedOverlays) or '(base)'}{tail}"
            )


def split_set(item: Any) -> tuple[str, list[str], str]:
    """(component, values path, value text) of one `COMPONENT:PATH=VALUE` string: the path
    split at unescaped dots, `\\.` kept as a dot inside a key."""
    text = str(item)
    usage = f"platform override {text!r}: expected COMPONENT:PATH=VALUE"
    component, colon, rest = text.partition(":")
    path_text, equals, value = rest.partition("=")
    component = component.strip()
    if not colon or not equals or not component:
        raise PlatformError(f"{usage} (e.g. gpu-operator:driver.enabled=false)")
    path = [p.replace("\\.", ".") for p in _SPLIT.split(path_text.strip())]
    if any(not p for p in path):
        raise PlatformError(f"{usage}: empty key in values path {path_text!r}")
    if len(path) > STACK_FILE.max_depth:
        raise PlatformError(
            f"{usage}: a values path of {len(path)} keys; at most {STACK_FILE.max_depth}, as "
            f"deep as a stack file may nest ({STACK_FILE.reason})"
        )
    if any("[" in p for p in path):
        raise PlatformError(
            f"{usage}: list indexes are not supported in a platform.set path; to set a list, "
            "give its component's values in a catalog of your own (gpu-ci:platform.catalogs, "
            "an overlay's componentRefs[].overrides: docs/recipes.md)"
        )
    return component, path, value


def _switch(item: Any, value: str) -> bool:
    if value not in ("true", "false"):
        raise PlatformError(
            f"platform override {str(item)!r}: `enabled` takes true or false, got {value!r}"
        )
    return value == "true"


def _typed(value: str) -> Any:
    """A value typed as Helm's `--set` types it (helm v3.20.2 `pkg/strvals/parser.go`
    `typedVal`): true, false and null in any case (`strings.EqualFold`); "0"; an int64 that
    `strconv.ParseInt(s, 10, 64)` reads, unless it starts with "0"; anything else (an int
    beyond int64, "007", "1_000", "1.5") a string."""
    folded = value.casefold()  # Go's EqualFold, for these ASCII words
    if folded in ("true", "false"):
        return folded == "true"
    if folded == "null":
        return None
    if value == "0":
        return 0
    if value[:1] != "0" and _INT.fullmatch(value) and int(value) in _INT64:
        return int(value)  # fullmatch, not match(...$), which takes "5\n"
    return value
