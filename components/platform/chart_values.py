"""Which Helm values paths a chart knows, read from the pinned chart's own values file.

`gpu-ci:platform.set: ["kubeflow-trainer:image.tagg=test"]` would deploy the chart's default
image and the e2e run would pass on it: a false green. So every `set` path is checked
against the chart the recipe pins, before anything registers (`set_problems`, reported by
`stacks/config/recipe.py` at `gpu-ci:platform.set[i]` with a did-you-mean), and the tests
check every path of the project catalog's values files and overrides the same way
(`unknown_paths`).

The chart's values are data: `recipes/chart-values/<chart>-<version>/` holds the chart's
`values.yaml` (or `values.schema.json`, which wins where a chart ships one), its
`Chart.yaml` and where both come from. A chart version without a folder there is not
checked: nothing is guessed from another version.

Paths are Helm's: keys joined by dots, `\\.` a dot inside a key, `[i]` a list index (as
`overrides.split_set` reads `set`, which refuses indexes; values files reach lists).

What a chart knows, from its `values.yaml`:

- every key of the defaults, and every key its comments document: a commented-out block
  (`# metrics:` / `#   serviceMonitor:` under `operator:`) is read by its indentation, as
  if uncommented, below the key it sits under. Prose (`# NOTE: ... sentence`, `## ...`,
  helm-docs `# -- ...`) and commented-out list items are no keys.
- Free-form (anything beneath is accepted, since the chart passes it on as data):
  - a map whose default is `{}` and a list whose default is `[]` (`nodeSelector: {}`,
    `podAnnotations: {}`, `env: []`, `tolerations: []`), as documented too (`# env: []`);
  - a key whose default is null but whose comments document keys under it: a map the
    chart leaves to the user, its comment an example;
  - every list: Helm replaces a list whole, and a default list's items are an example of
    the list, not a schema of its items;
  - a map with a key that is no template identifier (`kubernetes.io/os: linux`,
    `openshift.io/scc: ...`): Kubernetes labels, annotations or a node selector, data
    rather than the chart's own keys;
  - the Kubernetes objects charts pass to a pod verbatim (`resources`, `affinity`,
    `securityContext`, `podSecurityContext`, `containerSecurityContext`, `nodeSelector`,
    `annotations`, `labels`, `podAnnotations`, `podLabels`) whatever their default: their
    fields are the Kubernetes API's (which Helm's own manifest validation checks), not
    the chart's, e.g. gpu-operator's `operator.resources.requests.ephemeral-storage`;
  - a subchart's values: anything under a dependency's name (or alias) in `Chart.yaml`
    (gpu-operator's `node-feature-discovery`, the Trainer's `jobset` and `lws`), whose own
    values are not shipped here, and `global` in a chart with dependencies.
- Anything else beneath a scalar or a null default is refused (`image.tag.x`: the tag is
  a string), as is a key its map does not have (`image.tagg`).

From a `values.schema.json`: `properties` are the keys of an object (closed unless
`additionalProperties` or `patternProperties` opens it), `items` those of a list's items;
an object schema without `properties` is free-form; `$ref` (local), `allOf`, `anyOf` and
`oneOf` contribute their properties.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from components.platform.overrides import ENABLED, PlatformError, split_set
from core import yaml_text
from core.errors import did_you_mean
from recipes import PROJECT_CATALOG
from recipes.result import RecipeResult

CHART_VALUES = PROJECT_CATALOG.parent / "chart-values"
"""`recipes/chart-values`: one `<chart>-<version>` folder per chart version."""

Segment = str | int
_KUBERNETES_OBJECTS = frozenset(
    {
        "affinity",
        "annotations",
        "containerSecurityContext",
        "labels",
        "nodeSelector",
        "podAnnotations",
        "podLabels",
        "podSecurityContext",
        "resources",
        "securityContext",
    }
)
_DOC_KEY = re.compile(r"""([A-Za-z0-9_][A-Za-z0-9_.\-/]*|"[^"]+"|'[^']+'):(?:\s+(.*))?$""")
_LIST_ITEM = re.compile(r"-(\s|$)")
_INLINE_COMMENT = re.compile(r"\s+#.*$")
_PROSE_WORDS = 4
_LISTED_KEYS = 15


@dataclass(frozen=True)
class Known:
    """What a chart knows at one place of its values."""

    kind: Literal["map", "list", "free", "scalar"]
    keys: Mapping[str, Known] = field(default_factory=dict)
    """A map's keys."""
    items: Known | None = None
    """A list's items (None: free-form)."""
    what: str = ""
    """A scalar's default, in words (`a string`, `null`)."""


FREE = Known("free")


@dataclass(frozen=True)
class ChartValues:
    """The values paths one chart version knows."""

    name: str
    version: str
    root: Known

    def miss(self, path: Sequence[Segment]) -> str | None:
        """Why the chart does not know `path` (None: it does), with a did-you-mean."""
        found = _walk(self.root, path)
        if found is None:
            return None
        index, parent = found
        chart = f"the {self.name} chart ({self.version})"
        where = render(path[:index])
        at = render(path[: index + 1])
        segment = path[index]
        if parent.kind == "scalar":
            return f"'{where}' is {parent.what} in {chart}, so nothing can be set under it"
        if parent.kind == "list":
            return f"'{where}' is a list in {chart}, not a map [given: '{at}']"
        if isinstance(segment, int):
            return f"'{where or 'the values'}' is a map in {chart}, not a list [given: '{at}']"
        hint = self._suggest(path, index, list(parent.keys))
        keys = sorted(parent.keys)
        listed = ", ".join(keys[:_LISTED_KEYS])
        if len(keys) > _LISTED_KEYS:
            listed += f", ... ({len(keys) - _LISTED_KEYS} more)"
        under = f"keys under '{where}'" if where else "top-level keys"
        return f"{chart} has no value '{at}'{hint}; {under}: {listed}"

    def _suggest(self, path: Sequence[Segment], index: int, keys: list[str]) -> str:
        guess = did_you_mean(str(path[index]), keys)
        if guess is None:
            return ""
        whole = [*path[:index], guess, *path[index + 1 :]]
        shown = whole if _walk(self.root, whole) is None else whole[: index + 1]
        return f" (did you mean '{render(shown)}'?)"


def render(path: Sequence[Segment]) -> str:
    """`path` as Helm writes it: `a.b[0].c`, a dot inside a key escaped (`nvidia\\.com`)."""
    text = ""
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        else:
            key = segment.replace(".", "\\.")
            text += f".{key}" if text else key
    return text


def _walk(root: Known, path: Sequence[Segment]) -> tuple[int, Known] | None:
    """(index of the first segment `root` does not know, the place it was looked up in)."""
    node = root
    for index, segment in enumerate(path):
        if node.kind == "free":
            return None
        if isinstance(segment, int):
            if node.kind != "list":
                return index, node
            node = node.items or FREE
        elif node.kind == "map" and segment in node.keys:
            node = node.keys[segment]
        else:
            return index, node
    return None


# -- the charts --------------------------------------------------------------------------------
def chart_name(chart: str) -> str:
    """The chart's own name in a recipe's chart reference (`nvidia/gpu-operator`)."""
    return chart.rsplit("/", 1)[-1]


def chart_values(chart: str, version: str, root: Path = CHART_VALUES) -> ChartValues | None:
    """What chart `chart` at `version` knows, or None when `root` has no values for it."""
    name = chart_name(chart)
    for candidate in dict.fromkeys((version, version.removeprefix("v"), f"v{version}")):
        folder = root / f"{name}-{candidate}"
        if (folder / "values.yaml").is_file() or (folder / "values.schema.json").is_file():
            return _load(name, candidate, folder)
    return None


@cache
def _load(name: str, version: str, folder: Path) -> ChartValues:
    chart_file = folder / "Chart.yaml"
    meta = yaml_text.load(chart_file.read_text(encoding="utf-8")) if chart_file.is_file() else {}
    dependencies = [
        str(d.get("alias") or d["name"])
        for d in (meta or {}).get("dependencies") or []
        if isinstance(d, dict) and d.get("name")
    ]
    schema = folder / "values.schema.json"
    if schema.is_file():
        document = json.loads(schema.read_text(encoding="utf-8"))
        root = _from_schema(document, document)
    else:
        root = from_values_text((folder / "values.yaml").read_text(encoding="utf-8"))
    if root.kind == "map" and dependencies:
        opened = dict.fromkeys([*dependencies, "global"], FREE)
        root = Known("map", {**root.keys, **opened})
    return ChartValues(name, version, root)


# -- values.yaml -------------------------------------------------------------------------------
class _Open:
    """A documented `{}` or `[]`: free-form."""


_OPEN = _Open()
_ABSENT = object()


def from_values_text(text: str) -> Known:
    """What a chart's `values.yaml` text knows: its defaults and its documented keys."""
    defaults = yaml_text.load(text)
    node = yaml.compose(text, Loader=yaml_text.SafeLoader)
    documented = _documented(text, node)
    return _known(defaults if defaults is not None else {}, documented, "")


def _known(default: Any, documented: Any, key: str) -> Known:
    if key in _KUBERNETES_OBJECTS:
        return FREE
    if default is _ABSENT and isinstance(documented, dict):
        return _map({}, documented)  # a block only the comments document
    if default is _ABSENT:
        default = documented
    null_map = default is None and isinstance(documented, dict | _Open)
    if default == {} or isinstance(default, _Open) or null_map:
        return FREE
    if isinstance(default, dict):
        return _map(default, documented)
    if isinstance(default, list):
        return Known("list")
    return Known("scalar", what=_kind(default))


def _map(default: dict[Any, Any], documented: Any) -> Known:
    real = {str(k): v for k, v in default.items()}
    extra = documented if isinstance(documented, dict) else {}
    keys = [*real, *(k for k in extra if k not in real)]
    if any("/" in k or "." in k for k in keys):
        return FREE  # labels, annotations, a node selector: Kubernetes data
    return Known("map", {k: _known(real.get(k, _ABSENT), extra.get(k, _ABSENT), k) for k in keys})


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string"


def _documented(text: str, node: yaml.Node | None) -> dict[str, Any]:
    """The keys `text` documents in comments, as a tree: a leaf holds the value the comment
    gives (`_OPEN` for `{}`, `[]` or list items), a dict the keys documented under it."""
    positions: list[tuple[int, int, tuple[str, ...]]] = []
    _positions(node, (), positions)
    positions.sort()
    tree: dict[str, Any] = {}
    stack: list[tuple[int, tuple[str, ...]]] = []  # the commented-out block's open keys
    skip: int | None = None  # lines indented deeper are skipped (a list, a block scalar)
    for number, indent, content in _comments(text):
        if indent is None:  # a line of YAML ends the commented-out block
            stack, skip = [], None
            continue
        if skip is not None and (indent > skip or (indent == skip and _LIST_ITEM.match(content))):
            continue
        skip = None
        if _LIST_ITEM.match(content):
            skip = indent
            if stack and stack[-1][0] <= indent:
                _open_list(tree, stack[-1][1])  # `# key:` then `# - item`
            continue
        match = _DOC_KEY.match(content)
        rest = _INLINE_COMMENT.sub("", (match and match.group(2)) or "").strip()
        if match is None or (len(rest.split()) >= _PROSE_WORDS and rest[:1] not in "\"'[{"):
            continue  # prose, also `# NOTE: this option is deprecated ...`
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else _parent(positions, number, indent)
        path = (*parent, match.group(1).strip("\"'"))
        if rest[:1] in ("|", ">"):
            skip = indent  # a block scalar's lines
        _insert(tree, path, "" if skip is not None else _value(rest))
        stack.append((indent, path))
    return tree


def _comments(text: str) -> Iterator[tuple[int, int | None, str]]:
    """(line number, indent, text) of each comment line as if uncommented (one `#` and the
    space after it removed); indent None for a line of YAML. Prose comments (`##`, a
    comment inside a commented-out block) and blank lines are left out. (A `#` line inside a
    block scalar sits under the scalar's key, a string, so it documents nothing.)
    """
    for number, line in enumerate(text.splitlines()):
        stripped = line.lstrip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            yield number, None, ""
            continue
        body = stripped[1:].removeprefix(" ")
        content = body.lstrip()
        if content and not content.startswith("#"):
            yield number, len(line) - len(stripped) + len(body) - len(content), content


def _positions(
    node: yaml.Node | None, path: tuple[str, ...], found: list[tuple[int, int, tuple[str, ...]]]
) -> None:
    """Where each key of the document's maps is: (line, column, path). Keys inside lists
    are left out: what is documented under a list is free-form anyway."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = (*path, str(key.value))
            found.append((key.start_mark.line, key.start_mark.column, here))
            _positions(value, here, found)


def _parent(
    positions: list[tuple[int, int, tuple[str, ...]]], line: int, indent: int
) -> tuple[str, ...]:
    """The path of the key a comment at (`line`, `indent`) sits under."""
    for key_line, column, path in reversed(positions):
        if key_line < line and column < indent:
            return path
    return ()


def _value(text: str) -> Any:
    if not text:
        return None
    try:
        value = yaml_text.load(text)
    except yaml.YAMLError:
        return text
    return _OPEN if value in ({}, []) else value


def _insert(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """`value` at `path` of `tree`, unless keys are documented there already."""
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        if not isinstance(child, dict):
            return  # under a documented `{}` or a scalar: nothing more to know
        node = child
    if not isinstance(node.get(path[-1]), dict):
        node[path[-1]] = value


def _open_list(tree: dict[str, Any], path: tuple[str, ...]) -> None:
    """A documented key without a value (`# key:`) followed by list items: a list."""
    node: Any = tree
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict) and node.get(path[-1]) is None:
        node[path[-1]] = _OPEN


# -- values.schema.json ------------------------------------------------------------------------
def _from_schema(schema: Any, document: Any, depth: int = 0) -> Known:
    if not isinstance(schema, dict) or depth > 32:
        return FREE
    schema = _resolved(schema, document)
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    for combined in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(combined) or []:
            properties.update(_resolved(part, document).get("properties") or {})
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    if properties:
        extra = schema.get("additionalProperties", False)
        if extra is not False or schema.get("patternProperties"):
            return FREE
        return Known(
            "map", {k: _from_schema(v, document, depth + 1) for k, v in properties.items()}
        )
    if "array" in types:
        items = schema.get("items")
        return Known("list", items=_from_schema(items, document, depth + 1) if items else None)
    scalars = types - {"object", None}
    if scalars and "object" not in types:
        return Known("scalar", what=f"a {'/'.join(sorted(str(t) for t in scalars))}")
    return FREE


def _resolved(schema: Any, document: Any) -> dict[str, Any]:
    """`schema` with a local `$ref` (`#/definitions/x`) followed."""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 16:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return {}
        target = document
        for part in [p for p in ref[1:].split("/") if p]:
            target = target.get(part) if isinstance(target, dict) else None
        schema, seen = target, seen + 1
    return schema if isinstance(schema, dict) else {}


# -- checks ------------------------------------------------------------------------------------
def unknown_paths(chart: ChartValues, values: Mapping[str, Any]) -> list[str]:
    """What `chart` says of each key of `values` (a values file, overrides) it does not know.

    One message per unknown key (not per leaf beneath it). A list is walked only where the
    chart describes its items (a schema's `items`): elsewhere a list value replaces the
    chart's list, or sets a key to a list, and has no keys of the chart's to check."""
    found: list[str] = []
    _unknown(chart, chart.root, dict(values), (), found)
    return found


def _unknown(
    chart: ChartValues, node: Known, value: Any, path: tuple[Segment, ...], found: list[str]
) -> None:
    if node.kind == "free":
        return
    if isinstance(value, dict):
        for key, child in value.items():
            here = (*path, str(key))
            if node.kind == "map" and str(key) in node.keys:
                _unknown(chart, node.keys[str(key)], child, here, found)
            else:
                found.append(f"{render(here)}: {chart.miss(here)}")
    elif isinstance(value, list) and node.kind == "list" and node.items is not None:
        for index, item in enumerate(value):
            _unknown(chart, node.items, item, (*path, index), found)


def set_problems(items: Sequence[str], recipe: RecipeResult) -> list[tuple[int, str]]:
    """(index, message) for each `set` item whose values path the component's chart, as the
    recipe pins it, does not know. Items that do not parse, `enabled` switches, components
    the recipe lacks and charts without values data are left to their own checks."""
    problems: list[tuple[int, str]] = []
    for index, item in enumerate(items):
        try:
            component, path, _ = split_set(item)
        except PlatformError:
            continue
        ref = recipe.ref(component)
        if path == [ENABLED] or ref is None or not ref.chart or not ref.version:
            continue
        chart = chart_values(ref.chart, ref.version)
        why = chart.miss(path) if chart is not None else None
        if why is not None:
            problems.append((index, f"platform override '{component}:{render(path)}': {why}"))
    return problems
