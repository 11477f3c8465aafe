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

import math
import re
from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> Any:
    """The single document in `text` (safe types only), unbounded: for text gpu-ci rendered
    itself or pinned in the repository. What a user gives goes through `core.read_yaml`."""
    try:
        return yaml.load(text, Loader=SafeLoader)
    except (yaml.YAMLError, UnicodeError):
        return yaml.load(text, Loader=yaml.SafeLoader)  # raises with the source line shown


def load_all(text: str) -> list[Any]:
    """Every document in `text` (safe types only), unbounded, as `load`."""
    try:
        return list(yaml.load_all(text, Loader=SafeLoader))
    except (yaml.YAMLError, UnicodeError):
        return list(yaml.load_all(text, Loader=yaml.SafeLoader))  # raises, as in `load`


def dump(data: Any, *, dumper: type[yaml.SafeDumper] | None = None, **options: Any) -> str:
    """`data` as YAML text, block style unless `options` say otherwise."""
    options.setdefault("default_flow_style", False)
    text: str = yaml.dump(data, Dumper=dumper or SafeDumper, **options)
    return text


# -- YAML 1.2, as the Pulumi CLI reads stack files -------------------------------------------
#
# The CLI reads `Pulumi.yaml` and `Pulumi.<stack>.yaml` with Go's yaml.v3, whose plain
# scalars resolve by YAML 1.2's core schema as yaml.v3 implements it: only true/false (in
# three spellings) are booleans, so `on`, `yes`, `no`, `off` and `y` stay strings; dates
# and times stay strings; integers are Go's: `0x1F`, `0o17`, `0b101`, `017` (octal, as in
# YAML 1.1) and a sign, with `_` dropped anywhere; floats match yaml.v3's pattern and stay
# strings where they overflow; `.inf`, `-.inf` and `.nan` are floats. The loaders below
# resolve exactly that, and construct only the core tags (str, int, float, bool, null,
# map, seq and the `<<` merge); any other tag (`!!binary`, `!!timestamp`, `!!python/...`,
# custom ones) stops construction. Files are read through `core.read_yaml`, which bounds
# size, depth and alias expansion; a stack file's own checks (duplicate keys, key types,
# tags) are in `stacks.offline.stack_file.yaml_checks`.

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"
CORE_SCALAR_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL})

_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")
_WORDS: dict[str, str] = {
    **dict.fromkeys((*_TRUE, *_FALSE), BOOL),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), NULL),
    **dict.fromkeys(
        (
            *(f"{sign}.{inf}" for sign in ("", "+", "-") for inf in ("inf", "Inf", "INF")),
            ".nan",
            ".NaN",
            ".NAN",
        ),
        FLOAT,
    ),
    "<<": MERGE,
}
_GO_INT = re.compile(
    r"(?P<sign>[-+]?)(?:0[xX](?P<hex>[0-9a-fA-F]+)|0[oO](?P<oct>[0-7]+)|0[bB](?P<bin>[01]+)"
    r"|(?P<legacy>0[0-7]*)|(?P<dec>[1-9][0-9]*))"
)
# (base, most significant digits an unsigned 64-bit integer can have in that base)
_GO_BASES = {"hex": (16, 16), "oct": (8, 22), "bin": (2, 64), "legacy": (8, 22), "dec": (10, 20)}
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")


def go_int(text: str) -> int | None:
    """`text` (underscores already dropped) as yaml.v3 reads an integer: Go's
    strconv.ParseInt(text, 0, 64), then ParseUint; None when neither accepts it."""
    match = _GO_INT.fullmatch(text)
    if not match:
        return None
    group = next(g for g in _GO_BASES if match[g] is not None)
    base, most = _GO_BASES[group]
    digits = match[group]
    if len(digits.lstrip("0")) > most:  # out of range; spares int() a huge string
        return None
    value = int(digits, base)
    sign = match["sign"]
    if sign == "-":
        return -value if value <= 2**63 else None
    return value if value < (2**63 if sign == "+" else 2**64) else None


def _finite_float(text: str) -> bool:
    return math.isfinite(float(text))  # Go's ParseFloat refuses what overflows


def core_tag(value: str) -> str:
    """The tag yaml.v3 resolves an untagged plain scalar to (yaml.v3's resolve())."""
    tag = _WORDS.get(value)
    if tag is not None:
        return tag
    first = value[0]
    if first == ".":
        return FLOAT if _DOT_FLOAT.fullmatch(value) and _finite_float(value) else STR
    if first in "+-0123456789":
        plain = value.replace("_", "")
        if go_int(plain) is not None:
            return INT
        if _YAML_FLOAT.fullmatch(plain) and _finite_float(plain):
            return FLOAT
    return STR


def core_float(value: str) -> float:
    """A scalar that resolves to FLOAT or INT, as a float."""
    special = value.lower().lstrip("+")
    if special in (".inf", "-.inf", ".nan"):
        return {".inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}[special]
    whole = go_int(value.replace("_", ""))
    return float(whole) if whole is not None else float(value.replace("_", ""))


def _construct_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    value = go_int(str(node.value).replace("_", ""))
    if value is None:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not an integer", node.start_mark
        )
    return value


def _construct_float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    if core_tag(str(node.value)) not in (INT, FLOAT):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a number", node.start_mark
        )
    return core_float(str(node.value))


def _construct_bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    if node.value not in (*_TRUE, *_FALSE):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not true or false", node.start_mark
        )
    return node.value in _TRUE


class CoreSafeLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader reading YAML 1.2 as yaml.v3 does (see above)."""

    yaml_implicit_resolvers = {}  # noqa: RUF012  (replaced by `resolve`)
    yaml_constructors = {  # noqa: RUF012
        STR: yaml.SafeLoader.construct_yaml_str,
        INT: _construct_int,
        FLOAT: _construct_float,
        BOOL: _construct_bool,
        NULL: yaml.SafeLoader.construct_yaml_null,
        MAP: yaml.SafeLoader.construct_yaml_map,
        SEQ: yaml.SafeLoader.construct_yaml_seq,
        None: yaml.SafeLoader.construct_undefined,  # every other tag
    }
    yaml_multi_constructors = {}  # noqa: RUF012

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:  # plain and untagged (or `!`)
            return core_tag(value)
        # Shared with CoreCSafeLoader, hence no super(): the default tags of the rest.
        base = yaml.resolver.BaseResolver
        tag: str = base.resolve(self, kind, value, implicit)  # type: ignore[no-untyped-call]
        return tag


_CBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CoreCSafeLoader(_CBase):  # type: ignore[misc,valid-type]
    """The same reading through libyaml, where PyYAML has it."""

    yaml_implicit_resolvers = CoreSafeLoader.yaml_implicit_resolvers
    yaml_constructors = CoreSafeLoader.yaml_constructors
    yaml_multi_constructors = CoreSafeLoader.yaml_multi_constructors
    resolve = CoreSafeLoader.resolve
