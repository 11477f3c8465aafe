"""YAML read and written through libyaml when PyYAML has it.

The plan renders and checks several YAML documents (cloud-init user data, the kind config,
manifests, hook templates); the pure-Python emitter and parser cost a preview ~5x more.
The C classes are the same safe loader and dumper: they read the same data, raise the same
errors, and write the same text for what gpu-ci renders (a changed user data text would
replace VMs); only long double-quoted strings may fold at other points.
"""

from __future__ import annotations

from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> Any:
    """The single document in `text` (safe types only)."""
    return yaml.load(text, Loader=SafeLoader)


def load_all(text: str) -> list[Any]:
    """Every document in `text` (safe types only)."""
    return list(yaml.load_all(text, Loader=SafeLoader))


def dump(data: Any, *, dumper: type[yaml.SafeDumper] | None = None, **options: Any) -> str:
    """`data` as YAML text, block style unless `options` say otherwise."""
    options.setdefault("default_flow_style", False)
    text: str = yaml.dump(data, Dumper=dumper or SafeDumper, **options)
    return text
