"""What a chart knows from its `values.yaml`: the keys of its defaults, and the keys its
comments document (`comments`).

Free-form (anything beneath is accepted, since the chart passes it on as data):

- a map whose default is `{}` and a list whose default is `[]` (`nodeSelector: {}`,
  `podAnnotations: {}`, `env: []`, `tolerations: []`), as documented too (`# env: []`);
- a key whose default is null but whose comments document keys under it: a map the chart
  leaves to the user, its comment an example;
- every list: Helm replaces a list whole, and a default list's items are an example of the
  list, not a schema of its items;
- a map with a key that is no template identifier (`kubernetes.io/os: linux`,
  `openshift.io/scc: ...`): Kubernetes labels, annotations or a node selector, data rather
  than the chart's own keys;
- the Kubernetes objects charts pass to a pod verbatim (`resources`, `affinity`,
  `securityContext`, `podSecurityContext`, `containerSecurityContext`, `nodeSelector`,
  `annotations`, `labels`, `podAnnotations`, `podLabels`) whatever their default: their
  fields are the Kubernetes API's (which Helm's own manifest validation checks), not the
  chart's, e.g. gpu-operator's `operator.resources.requests.ephemeral-storage`.

Anything else beneath a scalar or a null default is refused (`image.tag.x`: the tag is a
string), as is a key its map does not have (`image.tagg`).
"""

from __future__ import annotations

from typing import Any

import yaml

from components.platform.chart_values.comments import Open, documented_keys
from components.platform.chart_values.paths import FREE, Known
from core import yaml_text

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
_ABSENT = object()


def from_values_text(text: str) -> Known:
    """What a chart's `values.yaml` text knows: its defaults and its documented keys."""
    defaults = yaml_text.load(text)
    node = yaml.compose(text, Loader=yaml_text.SafeLoader)
    documented = documented_keys(text, node)
    return _known(defaults if defaults is not None else {}, documented, "")


def _known(default: Any, documented: Any, key: str) -> Known:
    if key in _KUBERNETES_OBJECTS:
        return FREE
    if default is _ABSENT and isinstance(documented, dict):
        return _map({}, documented)  # a block only the comments document
    if default is _ABSENT:
        default = documented
    null_map = default is None and isinstance(documented, dict | Open)
    if default == {} or isinstance(default, Open) or null_map:
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
