"""Keys outside the `gpu-ci:` namespace, checked against what reads them.

Pulumi hands the program every key of a stack's config. `gpu-ci:` is the program's own
(`StackConfig`); each provider package configures its default provider from its namespace
(`oci:region`); the Pulumi CLI reads a few `pulumi:` keys; a key in any other namespace is
read by nothing. Pulumi says nothing about a key nobody reads, so a slip (`ocii:region`,
`kubernetes:kubeconfg`) would be ignored without a word: each is a warning here, naming
the key, with a did-you-mean.

A provider bridged from Terraform is stricter: when the engine configures its default
provider it refuses a key its schema lacks ("`oci:regoin` is not a valid configuration
key for the oci provider"), so `pulumi up` fails there, after other resources may have
been created. Such a key is a problem, refused before anything registers.

What each namespace accepts comes from the installed provider SDKs, read when a key of
that namespace is set, never a list kept by hand: a provider package is one whose
`pulumi-plugin.json` (the file Pulumi reads to find a program's plugins) declares a
resource plugin, named by its namespace; its keys are the config variables of its schema,
which the SDK's `config/vars.py` reads (`__config__.get('region')`), or, for a package
generated without that module (pulumi-kubernetes), its `ProviderArgs` properties.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import did_you_mean
from stacks.config.problems import Problem
from stacks.config.stack import NAMESPACE, StackConfig

PULUMI = "pulumi"
PULUMI_KEYS = ("autonaming", "disable-default-providers", "tags")
"""The `pulumi:` keys the Pulumi CLI reads, as its documentation describes them:
`pulumi:autonaming` (docs/iac/concepts/resources/names, "Autonaming configuration"),
`pulumi:disable-default-providers` (docs/iac/concepts/resources/providers, "Disabling
default providers") and `pulumi:tags`, the stack tags `pulumi new` writes to Pulumi.yaml
(`pulumi:tags: {value: {pulumi:template: python}}`: `pulumi:template` is a tag in it)."""

REFUSES_UNKNOWN_KEYS = frozenset({"oci", "random"})
"""The providers bridged from Terraform (pulumi-terraform-bridge) among this program's:
their CheckConfig refuses a key their schema lacks when they configure a default provider
(pulumi/pulumi-aws#3360: "by design"; pulumi/pulumi#16757 shows pulumi-random's message).
pulumi-kubernetes and pulumi-command are native providers, which ignore such a key."""

_VARS_KEY = re.compile(r"__config__\.get(?:_bool|_int|_float|_object)?\(\s*['\"]([^'\"]+)['\"]")


@dataclass(frozen=True)
class ProviderPackage:
    """An installed provider SDK: the namespace its default provider reads, and where."""

    namespace: str
    version: str
    path: Path

    @property
    def label(self) -> str:
        return f"{self.path.name.replace('_', '-')} {self.version}".strip()

    def keys(self) -> frozenset[str]:
        return provider_keys(self.path)


@functools.cache
def provider_packages() -> dict[str, ProviderPackage]:
    """The installed provider SDKs by namespace, the first on `sys.path` as import finds it."""
    found: dict[str, ProviderPackage] = {}
    for entry in sys.path:
        base = Path(entry or ".")
        if not base.is_dir():
            continue
        for plugin in sorted(base.glob("*/pulumi-plugin.json")):
            try:
                data = json.loads(plugin.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict):
                continue
            name = data.get("name")
            if data.get("resource") is True and isinstance(name, str) and name:
                version = str(data.get("version") or "")
                found.setdefault(name, ProviderPackage(name, version, plugin.parent))
    return found


@functools.cache
def provider_keys(package: Path) -> frozenset[str]:
    """The config keys a provider package's default provider accepts (without namespace)."""
    variables = package / "config" / "vars.py"
    if variables.is_file():
        return frozenset(_VARS_KEY.findall(variables.read_text(encoding="utf-8")))
    provider = package / "provider.py"
    if provider.is_file():
        return _provider_args(provider.read_text(encoding="utf-8"))
    return frozenset()


def _provider_args(source: str) -> frozenset[str]:
    """The properties of `ProviderArgs`, by the names Pulumi gives them (`@pulumi.getter`,
    or `@pulumi.getter(name="kubeClientSettings")` where the Python name differs)."""
    keys: set[str] = set()
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.ClassDef) and node.name == "ProviderArgs"):
            continue
        for method in node.body:
            if not isinstance(method, ast.FunctionDef):
                continue
            for decorator in method.decorator_list:
                if ast.unparse(decorator) == "pulumi.getter":
                    keys.add(method.name)
                elif isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == (
                    "pulumi.getter"
                ):
                    names = [k.value for k in decorator.keywords if k.arg == "name"]
                    if names and isinstance(names[0], ast.Constant):
                        keys.add(str(names[0].value))
    return frozenset(keys)


def namespace_keys(namespace: str) -> frozenset[str]:
    """The keys a namespace this program reads accepts; empty for any other namespace."""
    if namespace == NAMESPACE:
        return frozenset(StackConfig.model_fields)
    if namespace == PULUMI:
        return frozenset(PULUMI_KEYS)
    package = provider_packages().get(namespace)
    return package.keys() if package is not None else frozenset()


def _hint(guess: str | None) -> str:
    return f" (did you mean {guess!r}?)" if guess else ""


@dataclass
class OtherKeys:
    """What the keys outside `gpu-ci:` come to: problems (refused), and warnings."""

    problems: list[Problem]
    warnings: list[str]


def check_other_keys(keys: Iterable[str]) -> OtherKeys:
    """Check each `namespace:key` outside `gpu-ci:` against what reads its namespace."""
    out = OtherKeys([], [])
    packages = provider_packages()
    for full_key in sorted(set(keys)):
        namespace, _, key = full_key.partition(":")
        key = key.removeprefix("config:")  # the legacy `ns:config:key` form
        if namespace == NAMESPACE or not key:
            continue
        allowed = namespace_keys(namespace)
        if key in allowed:
            continue
        guess = did_you_mean(key, allowed)
        hint = _hint(f"{namespace}:{guess}" if guess else None)
        if namespace == PULUMI:
            listed = ", ".join(f"{PULUMI}:{k}" for k in PULUMI_KEYS)
            out.warnings.append(
                f"{full_key}: not a key the Pulumi CLI reads ({listed}){hint}; it is ignored"
            )
        elif namespace in packages:
            package = packages[namespace]
            listed = f"; it has {', '.join(sorted(allowed))}" if not guess else ""
            what = f"not a config key of {package.label}{hint}{listed}"
            if not allowed:
                what = f"{package.label} takes no config keys"
            if namespace in REFUSES_UNKNOWN_KEYS:
                out.problems.append(
                    Problem(
                        full_key,
                        f"{what}; the {namespace} provider refuses a key it does not define "
                        "when Pulumi configures it, so `pulumi up` would fail there",
                    )
                )
            else:
                out.warnings.append(f"{full_key}: {what}; it is ignored")
        else:
            out.warnings.append(_unread(full_key, namespace, key, sorted(packages)))
    return out


def _unread(full_key: str, namespace: str, key: str, providers: list[str]) -> str:
    """A key in a namespace no package of this program reads: the nearest one it reads."""
    readers = [NAMESPACE, PULUMI, *providers]
    near = did_you_mean(namespace, readers)
    hint = ""
    if near is not None:
        guess = did_you_mean(key, namespace_keys(near))
        hint = _hint(f"{near}:{guess}") if guess else f" (did you mean the {near}: namespace?)"
    return (
        f"{full_key}: no package of this program reads the {namespace}: namespace (it reads "
        f"{', '.join(f'{r}:' for r in readers)}){hint}; it is ignored"
    )
