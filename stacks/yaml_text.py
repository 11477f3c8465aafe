"""YAML read and written through libyaml when PyYAML has it.

The plan renders and checks several YAML documents (cloud-init user data, the kind config,
manifests, hook templates); the pure-Python emitter and parser cost a preview ~5x more.
The C classes are the same safe loader and dumper: they read the same data and write the
same text for what gpu-ci renders (a changed user data text would replace VMs; the tests
compare every registered input of the example stacks); only long double-quoted strings may
fold at other points. libyaml's error messages are terser (no source line, no caret), so a
document it rejects is parsed again by the pure-Python loader, whose error is the one
raised: users see the same message as before, and only a bad document pays for it.
"""

from __future__ import annotations

from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> Any:
    """The single document in `text` (safe types only)."""
    try:
        return yaml.load(text, Loader=SafeLoader)
    except (yaml.YAMLError, UnicodeError):
        return yaml.load(text, Loader=yaml.SafeLoader)  # raises with the source line shown


def load_all(text: str) -> list[Any]:
    """Every document in `text` (safe types only)."""
    try:
        return list(yaml.load_all(text, Loader=SafeLoader))
    except (yaml.YAMLError, UnicodeError):
        return list(yaml.load_all(text, Loader=yaml.SafeLoader))  # raises, as in `load`


def dump(data: Any, *, dumper: type[yaml.SafeDumper] | None = None, **options: Any) -> str:
    """`data` as YAML text, block style unless `options` say otherwise."""
    options.setdefault("default_flow_style", False)
    text: str = yaml.dump(data, Dumper=dumper or SafeDumper, **options)
    return text
