"""gpu-ci's mandatory policies as plain functions over a resource's type, name and inputs.

`policy/__main__.py` wraps each `Rule` into a pulumi-policy `ResourceValidationPolicy`, so
`pulumi preview --policy-pack policy` enforces them; tests run the same functions over the
resources the offline plan records. Inputs are the engine's (camelCase keys, plain values).
Every check returns its violations as messages that name the resource; an empty list passes.

Rules:
- `no-world-open-ingress`: no OCI NSG rule or security list opens a port to 0.0.0.0/0 or
  ::/0, except ports listed in the policy config `allowedWorldPorts` (none by default).
- `helm-chart-versions-pinned`: every Helm release (and v4 Chart) names an exact chart
  version, not a range; local chart paths are exempt.
- `images-pinned-by-digest`: every container image of a Pod, Job, CronJob, Deployment,
  DaemonSet, StatefulSet or ReplicaSet the program renders carries `@sha256:<digest>`.
  Exception: repositories in `tagPinnedRepositories` (default: `registry.k8s.io/kubectl`,
  whose release tags are immutable, and `docker.io/alpine/k8s`, the ARC cleanup CronJob's;
  no digest of either could be confirmed offline) may use an exact version tag instead.
  Images inside Helm values are pinned by the chart version and the stack config (the ARC
  launcher image must be a digest there), not here.
- `runners-ephemeral`: a host's github-runner step registers ephemeral runners
  (`EPHEMERAL=true`); legacy actions-runner-controller runners (summerwind CRDs) must not
  set `ephemeral: false`. ARC scale sets (gha-runner-scale-set) are ephemeral by design.
- `gpu-instances-tagged`: every OCI GPU instance, and the nodes of every GPU node pool,
  carry non-empty `gpu-ci-stack` and `gpu-ci-owner` freeform tags.
- `no-plaintext-secrets-in-pod-env`: no container env var (in any Kubernetes resource,
  Helm values included) holds a credential as a literal `value`: names with TOKEN, KEY,
  PASSWORD, SECRET or CREDENTIALS (not ending in FILE, PATH, DIR, NAME, ID or FINGERPRINT)
  and values that look like keys or tokens must come from `valueFrom.secretKeyRef`.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "[unknown]"
"""How the offline plan shows a value known only after deployment."""


@dataclass(frozen=True)
class Resource:
    """What a resource validation sees: type token, logical name and inputs."""

    type: str
    name: str
    props: Mapping[str, Any]

    def where(self) -> str:
        return f"{self.name} ({self.type})"


Check = Callable[[Resource, Mapping[str, Any]], list[str]]


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    check: Check
    config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """JSON-schema properties of the policy's config, with their defaults."""

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.config.items() if "default" in v}

    def __call__(self, resource: Resource, config: Mapping[str, Any] | None = None) -> list[str]:
        return self.check(resource, {**self.defaults(), **(config or {})})


def _known(value: Any) -> bool:
    return value is not None and value != UNKNOWN


# -- no-world-open-ingress ------------------------------------------------------------------

NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SECURITY_LISTS = (
    "oci:Core/securityList:SecurityList",
    "oci:Core/defaultSecurityList:DefaultSecurityList",
)
_PORTED = {"6": "tcpOptions", "17": "udpOptions"}
_PROTOCOLS = {"6": "TCP", "17": "UDP", "1": "ICMP", "58": "ICMPv6", "all": "all protocols"}


def _is_world(source: Any) -> bool:
    if not isinstance(source, str) or not _known(source):
        return False
    try:
        return ipaddress.ip_network(source, strict=False).prefixlen == 0
    except ValueError:
        return False  # a service label such as all-iad-services-in-oracle-services-network


def _port_range(options: Any) -> tuple[int, int] | None:
    """(min, max) of a rule's destination ports; None means every port."""
    if not isinstance(options, Mapping):
        return None
    ports = options.get("destinationPortRange", options)  # NSG rules nest it, lists do not
    if not isinstance(ports, Mapping) or ports.get("min") is None:
        return None
    low, high = int(ports["min"]), int(ports.get("max", ports["min"]))
    return low, high


def _world_rule(rule: Mapping[str, Any], allowed: set[int]) -> str | None:
    """Why an ingress rule opens something to the world that is not allowed, or None."""
    if not _is_world(rule.get("source")):
        return None
    protocol = str(rule.get("protocol", "all"))
    if protocol not in _PORTED:
        return f"{_PROTOCOLS.get(protocol, 'protocol ' + protocol)} open to {rule['source']}"
    span = _port_range(rule.get(_PORTED[protocol]))
    name = _PROTOCOLS[protocol]
    if span is None:
        return f"every {name} port open to {rule['source']}"
    low, high = span
    if high - low + 1 <= len(allowed) and all(p in allowed for p in range(low, high + 1)):
        return None
    ports = str(low) if low == high else f"{low}-{high}"
    return f"{name} port {ports} open to {rule['source']}"


def check_world_ingress(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    allowed = {int(p) for p in config.get("allowedWorldPorts", [])}
    rules: list[Mapping[str, Any]] = []
    if resource.type == NSG_RULE and resource.props.get("direction") == "INGRESS":
        rules = [resource.props]
    elif resource.type in SECURITY_LISTS:
        rules = [
            r for r in resource.props.get("ingressSecurityRules") or [] if isinstance(r, Mapping)
        ]
    found = [why for r in rules if (why := _world_rule(r, allowed))]
    hint = "allow the port in the policy config allowedWorldPorts, or narrow the source"
    return [f"{resource.where()}: {why}; {hint}" for why in found]


# -- helm-chart-versions-pinned -------------------------------------------------------------

HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def check_chart_version(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type not in HELM_TYPES:
        return []
    chart = str(resource.props.get("chart", ""))
    if chart.startswith(("./", "../", "/")):
        return []  # a chart in the repository is pinned by the commit
    version = resource.props.get("version")
    if not _known(version) and version is not None:
        return []
    if not version:
        return [f"{resource.where()}: chart {chart!r} has no version; pin an exact one"]
    if not EXACT_VERSION.match(str(version)):
        return [
            f"{resource.where()}: chart {chart!r} version {version!r} is a range or not a "
            "version; pin an exact one (e.g. 1.2.3)"
        ]
    return []


# -- images-pinned-by-digest ----------------------------------------------------------------

WORKLOAD_KINDS = ("Pod", "Job", "CronJob", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
VERSION_TAG = re.compile(r":v?\d+(\.\d+){1,3}([-+][0-9A-Za-z.-]+)?$")
TAG_PINNED_REPOSITORIES = ["registry.k8s.io/kubectl", "docker.io/alpine/k8s"]
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def _is_workload(type_: str) -> bool:
    return type_.startswith("kubernetes:") and type_.rsplit(":", 1)[-1] in WORKLOAD_KINDS


def containers(value: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, container) of every container in a pod spec anywhere inside `value`."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if key in _CONTAINER_LISTS and isinstance(item, list):
                for i, container in enumerate(item):
                    if isinstance(container, Mapping):
                        yield f"{here}[{i}]", container
            else:
                yield from containers(item, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from containers(item, f"{path}[{i}]")


def _repository(image: str) -> str:
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    return name


def check_image_digest(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if not _is_workload(resource.type):
        return []
    tag_pinned = set(config.get("tagPinnedRepositories", []))
    found = []
    for path, container in containers(resource.props):
        image = container.get("image")
        if not isinstance(image, str) or not _known(image) or DIGEST.search(image):
            continue
        if _repository(image) in tag_pinned and VERSION_TAG.search(image):
            continue
        found.append(
            f"{resource.where()}: {path} image {image!r} is not pinned by digest "
            "(REPOSITORY@sha256:...)"
        )
    return found


# -- runners-ephemeral ----------------------------------------------------------------------

COMMANDS = ("command:remote:Command", "command:local:Command")
RUNNER_STEP = re.compile(r"^readonly GPU_CI_STEP='?github-runner'?$", re.MULTILINE)
EPHEMERAL_ON = re.compile(r"^readonly EPHEMERAL='?true'?$", re.MULTILINE)
LEGACY_RUNNERS = tuple(
    f"kubernetes:actions.summerwind.dev/v1alpha1:{kind}"
    for kind in ("Runner", "RunnerDeployment", "RunnerReplicaSet", "RunnerSet")
)


def check_runner_ephemeral(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type in COMMANDS:
        for key in ("stdin", "create"):
            script = resource.props.get(key)
            if isinstance(script, str) and RUNNER_STEP.search(script):
                if not EPHEMERAL_ON.search(script):
                    return [
                        f"{resource.where()}: the github-runner step registers a persistent "
                        "runner (EPHEMERAL is not true); set gpu-ci:runner.ephemeral: true"
                    ]
                return []
        return []
    if resource.type in LEGACY_RUNNERS:
        spec = resource.props.get("spec") or {}
        template = (spec.get("template") or {}).get("spec") or {}
        if spec.get("ephemeral") is False or template.get("ephemeral") is False:
            return [f"{resource.where()}: runners must be ephemeral (ephemeral: false is set)"]
    return []


# -- gpu-instances-tagged -------------------------------------------------------------------

INSTANCE = "oci:Core/instance:Instance"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
REQUIRED_TAGS = ("gpu-ci-stack", "gpu-ci-owner")
_GPU_SHAPE = re.compile(r"^(VM|BM)\.GPU")


def _missing_tags(tags: Any) -> list[str]:
    tags = tags if isinstance(tags, Mapping) else {}
    return [t for t in REQUIRED_TAGS if not tags.get(t) or tags.get(t) == "unset"]


def check_gpu_tags(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type == INSTANCE:
        shape, tags = resource.props.get("shape"), resource.props.get("freeformTags")
    elif resource.type == NODE_POOL:
        shape = resource.props.get("nodeShape")
        tags = (resource.props.get("nodeConfigDetails") or {}).get("freeformTags")
    else:
        return []
    if not isinstance(shape, str) or not _GPU_SHAPE.match(shape):
        return []
    missing = _missing_tags(tags)
    if not missing:
        return []
    where = "its nodes' freeformTags" if resource.type == NODE_POOL else "freeformTags"
    return [f"{resource.where()}: GPU shape {shape} lacks {', '.join(missing)} in {where}"]


# -- no-plaintext-secrets-in-pod-env --------------------------------------------------------

SECRET_WORDS = {"TOKEN", "KEY", "APIKEY", "PASSWORD", "PASSWD", "SECRET", "CREDENTIALS"}
NOT_SECRET_SUFFIXES = {"FILE", "PATH", "DIR", "NAME", "ID", "FINGERPRINT"}
CREDENTIAL_VALUE = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}"
)


def _secret_name(name: str) -> bool:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name.upper()) if w]
    return bool(words) and words[-1] not in NOT_SECRET_SUFFIXES and bool(SECRET_WORDS & set(words))


def check_env_secrets(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if not resource.type.startswith("kubernetes:"):
        return []
    found = []
    for path, container in containers(resource.props):
        for env in container.get("env") or []:
            if not isinstance(env, Mapping) or "value" not in env:
                continue
            name, value = str(env.get("name", "")), env["value"]
            if not isinstance(value, str) or not value or not _known(value):
                continue
            if _secret_name(name) or CREDENTIAL_VALUE.search(value):
                found.append(
                    f"{resource.where()}: {path} env {name} holds a credential as a plain "
                    "value; use valueFrom.secretKeyRef"
                )
    return found


RULES: tuple[Rule, ...] = (
    Rule(
        "no-world-open-ingress",
        "No OCI NSG rule or security list opens a port to 0.0.0.0/0 or ::/0, except "
        "explicitly allowed ports.",
        check_world_ingress,
        {
            "allowedWorldPorts": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1, "maximum": 65535},
                "default": [],
            }
        },
    ),
    Rule(
        "helm-chart-versions-pinned",
        "Every Helm release names an exact chart version, not a range.",
        check_chart_version,
    ),
    Rule(
        "images-pinned-by-digest",
        "Container images of rendered workloads are pinned by digest (documented "
        "repositories: an exact version tag).",
        check_image_digest,
        {
            "tagPinnedRepositories": {
                "type": "array",
                "items": {"type": "string"},
                "default": TAG_PINNED_REPOSITORIES,
            }
        },
    ),
    Rule(
        "runners-ephemeral",
        "Self-hosted GitHub runners are ephemeral: one job, then a fresh runner.",
        check_runner_ephemeral,
    ),
    Rule(
        "gpu-instances-tagged",
        "GPU instances carry the gpu-ci-stack and gpu-ci-owner freeform tags.",
        check_gpu_tags,
    ),
    Rule(
        "no-plaintext-secrets-in-pod-env",
        "No credential is a literal env value of a container; use a secretKeyRef.",
        check_env_secrets,
    ),
)
