"""`helm-chart-versions-pinned`: every Helm release names an exact chart version.

A range or no version would deploy whatever the repository offers that day; a chart in
the repository (a local path) is pinned by the commit and exempt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policy.rule import Resource, known

HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
EXACT_VERSION = re.compile(r"v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")


def check_chart_version(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type not in HELM_TYPES:
        return []
    chart = str(resource.props.get("chart", ""))
    if chart.startswith(("./", "../", "/")):
        return []  # a chart in the repository is pinned by the commit
    version = resource.props.get("version")
    if not known(version) and version is not None:
        return []
    if not version:
        return [f"{resource.where()}: chart {chart!r} has no version; pin an exact one"]
    if not EXACT_VERSION.fullmatch(str(version)):  # not match(...$): that takes "1.2.3\n"
        return [
            f"{resource.where()}: chart {chart!r} version {version!r} is a range or not a "
            "version; pin an exact one (e.g. 1.2.3)"
        ]
    return []
