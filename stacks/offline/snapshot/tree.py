"""Print a snapshot as the resource tree `pulumi preview` would show, with edges."""

from __future__ import annotations

from typing import Any

from stacks.offline.snapshot.graph import collapsed_dependencies
from stacks.offline.snapshot.shape import Snapshot

_WIDTH = 90
_KEY_INPUTS = 5

# The inputs a reviewer looks for first, per resource type (dotted paths into inputs).
# Types not listed show their first scalar inputs.
KEY_INPUTS: dict[str, tuple[str, ...]] = {
    "oci:Core/instance:Instance": (
        "shape",
        "availabilityDomain",
        "sourceDetails.sourceId",
        "sourceDetails.bootVolumeSizeInGbs",
        "createVnicDetails.assignPublicIp",
    ),
    "oci:Core/vcn:Vcn": ("cidrBlocks", "dnsLabel"),
    "oci:Core/subnet:Subnet": ("cidrBlock", "prohibitPublicIpOnVnic", "securityListIds"),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": (
        "direction",
        "protocol",
        "source",
        "destination",
        "port=tcpOptions.destinationPortRange.min",
    ),
    "oci:Core/routeTable:RouteTable": ("routeRules",),
    "oci:Core/computeCapacityReport:ComputeCapacityReport": (
        "availabilityDomain",
        "shapeAvailabilities",
    ),
    "kubernetes:helm.sh/v3:Release": ("chart", "version", "namespace", "repo=repositoryOpts.repo"),
    "command:remote:Command": ("triggers", "script=stdin"),
    "command:local:Command": ("triggers", "script=stdin", "environment"),
}
# Any other Kubernetes object: which object it is, then what it holds.
_KUBERNETES = ("kind", "name=metadata.name", "namespace=metadata.namespace")
_SKIP = {"compartmentId", "displayName", "freeformTags"}


def _get(inputs: dict[str, Any], path: str) -> Any:
    value: Any = inputs
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        if len(value) > _WIDTH:
            return f"<{len(value)} chars>"
        return value
    if isinstance(value, list) and value and all(isinstance(v, (str, int)) for v in value):
        text = ",".join(str(v) for v in value)
        return f"[{text}]" if len(text) <= _WIDTH else None
    return None


def _compact(value: Any) -> str | None:
    text = _scalar(value)
    if text is None and isinstance(value, (list, dict)):
        n = len(value)
        noun = ("item" if isinstance(value, list) else "key") + ("" if n == 1 else "s")
        text = f"[{n} {noun}]" if isinstance(value, list) else f"{{{n} {noun}}}"
    return text


def key_inputs(type_: str, inputs: dict[str, Any]) -> str:
    """The inputs that matter for `type_`, `key=value`, for a one-line summary."""
    paths = KEY_INPUTS.get(type_)
    if paths is None and type_.startswith("kubernetes:") and "metadata" in inputs:
        paths = _KUBERNETES
    if paths is None:
        paths = tuple(k for k in sorted(inputs) if not k.startswith("__") and k not in _SKIP)
    parts = []
    for entry in paths:
        label, _, path = entry.rpartition("=")
        value = _get(inputs, path)
        text = _compact(value) if value is not None else None
        if text is not None:
            parts.append(f"{label or path.rsplit('.', 1)[-1]}={text}")
    return "  ".join(parts[:_KEY_INPUTS])


def _run_order(resources: list[dict[str, Any]], deps_of: dict[str, list[str]]) -> dict[str, int]:
    """Each resource's place in one topological order of the graph (ties: by URN)."""
    pending = {r["urn"] for r in resources}
    rank: dict[str, int] = {}
    while pending:
        ready = sorted(u for u in pending if not set(deps_of.get(u, [])) & pending)
        urn = ready[0] if ready else sorted(pending)[0]  # a cycle cannot happen; be safe
        rank[urn] = len(rank)
        pending.discard(urn)
    return rank


def _in_start_order(
    kids: list[dict[str, Any]],
    rank: dict[str, int],
    children: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Siblings in the order they start: by the first resource inside each to run."""

    def first(r: dict[str, Any]) -> int:
        inner = [first(kid) for kid in children.get(r["urn"], [])]
        return min([rank[r["urn"]], *inner]) if not inner else min(inner)

    return sorted(kids, key=lambda r: (first(r), r["urn"]))


def render_tree(snap: Snapshot) -> str:
    resources = snap["resources"]
    by_urn = {r["urn"]: r for r in resources}
    deps_of = collapsed_dependencies(snap)
    rank = _run_order(resources, {r["urn"]: r["dependencies"] for r in resources})
    children: dict[str, list[dict[str, Any]]] = {}
    for r in resources:
        parent = r["parent"] if r["parent"] in by_urn else ""
        children.setdefault(parent, []).append(r)
    lines = [f"{snap['project']}/{snap['stack']}: {len(resources)} resources (offline plan)"]

    def walk(parent: str, prefix: str) -> None:
        kids = _in_start_order(children.get(parent, []), rank, children)
        for i, r in enumerate(kids):
            last = i == len(kids) - 1
            lines.append(f"{prefix}{'└─ ' if last else '├─ '}{r['type']}  {r['name']}")
            inner = prefix + ("   " if last else "│  ")
            summary = key_inputs(r["type"], r["inputs"])
            if summary:
                lines.append(f"{inner}    {summary}")
            deps = [by_urn[d]["name"] for d in deps_of[r["urn"]] if d in by_urn]
            if deps:
                lines.append(f"{inner}    depends on: {', '.join(sorted(set(deps)))}")
            walk(r["urn"], inner)

    walk("", "")
    if snap.get("outputs"):
        lines.append("outputs: " + ", ".join(sorted(snap["outputs"])))
        cost = snap["outputs"].get("cost")
        if isinstance(cost, dict):
            lines += [str(line) for line in cost.get("lines", [])]
        observability = snap["outputs"].get("observability")
        if isinstance(observability, dict):
            for command in observability.get("portForward", []):
                lines.append(f"observability: {command}")
    return "\n".join(lines) + "\n"
