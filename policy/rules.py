"""gpu-ci's mandatory policies as plain functions over a resource's type, name and inputs.

`policy/__main__.py` wraps each `Rule` into a pulumi-policy `ResourceValidationPolicy` and
each `StackRule` (which sees every resource at once) into a `StackValidationPolicy`, so
`pulumi preview --policy-pack policy` enforces them; tests run the same functions over the
resources the offline plan records. Inputs are the engine's (camelCase keys, plain values).
Every check returns its violations as messages that name the resource; an empty list passes.

This module imports nothing but the standard library: the pack runs in its own virtualenv
(pulumi and pulumi-policy only), and `gpu-ci:network` imports `world_openings` from here.

Rules:
- `no-world-open-ingress` (a stack rule): the OCI NSG rules and security lists of a stack,
  together, open no port to the whole internet, except ports listed in the policy config
  `allowedWorldPorts` (none by default). The union of the sources that reach each port is
  judged (`world_openings`): `0.0.0.0/1` plus `128.0.0.0/1` is `0.0.0.0/0`, and IPv6 blocks
  carrying IPv4 addresses (`::ffff:0:0/96`, `::/96`, `2002::/16`) count as those addresses.
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
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

UNKNOWN = "[unknown]"
"""How the offline plan shows a value known only after deployment."""


@dataclass(frozen=True)
class Resource:
    """What a resource validation sees: type token, logical name and inputs (and, in a
    stack validation, the URN a violation is reported against)."""

    type: str
    name: str
    props: Mapping[str, Any]
    urn: str | None = None

    def where(self) -> str:
        return f"{self.name} ({self.type})"


Check = Callable[[Resource, Mapping[str, Any]], list[str]]
StackCheck = Callable[[Sequence[Resource], Mapping[str, Any]], list[tuple[Resource, str]]]
"""A check over every resource of a stack: (the resource to report against, message)."""


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


@dataclass(frozen=True)
class StackRule:
    """A rule over all of a stack's resources at once (a pulumi-policy stack validation),
    for what no single resource shows, such as the union of the sources ingress opens."""

    name: str
    description: str
    check: StackCheck
    config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """JSON-schema properties of the policy's config, with their defaults."""

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.config.items() if "default" in v}

    def violations(
        self, resources: Iterable[Resource], config: Mapping[str, Any] | None = None
    ) -> list[tuple[Resource, str]]:
        return self.check(list(resources), {**self.defaults(), **(config or {})})

    def __call__(
        self, resources: Iterable[Resource], config: Mapping[str, Any] | None = None
    ) -> list[str]:
        return [message for _, message in self.violations(resources, config)]


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


ALL_PORTS = (1, 65535)
IPV4_WORLD = ipaddress.IPv4Network("0.0.0.0/0")
IPV6_WORLD = ipaddress.IPv6Network("::/0")
IPV4_IN_IPV6 = (
    (ipaddress.IPv6Network("::ffff:0:0/96"), 96),  # IPv4-mapped (RFC 4291 2.5.5.2)
    (ipaddress.IPv6Network("::/96"), 96),  # IPv4-compatible, deprecated (RFC 4291 2.5.5.1)
    (ipaddress.IPv6Network("2002::/16"), 16),  # 6to4 (RFC 3056): 2002:AABB:CCDD::/48
)
"""IPv6 blocks that carry an IPv4 address, and the bit it starts at: opening (part of) one
opens the IPv4 addresses it carries."""


@dataclass(frozen=True)
class WorldOpening:
    """A whole internet, `0.0.0.0/0` or `::/0`, that some sources open together."""

    world: str
    through: tuple[str, ...]
    """Sources, as given and in their order, whose union covers it, none of them redundant
    (so just one where one alone covers it)."""

    def __str__(self) -> str:
        if self.through == (self.world,):
            return self.world
        return f"{self.world} through {', '.join(self.through)}"


def network(cidr: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """`cidr` as a network; None for what is no CIDR (an unknown, a service label such as
    all-iad-services-in-oracle-services-network, an NSG's OCID)."""
    if not isinstance(cidr, str) or not _known(cidr):
        return None
    try:
        return ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return None


def embedded_ipv4(net: ipaddress.IPv6Network) -> list[ipaddress.IPv4Network]:
    """The IPv4 networks that an IPv6 network opens through `IPV4_IN_IPV6`."""
    found = []
    for block, start in IPV4_IN_IPV6:
        if block.subnet_of(net):
            found.append(IPV4_WORLD)
        elif net.subnet_of(block):
            address = (int(net.network_address) >> (96 - start)) & 0xFFFFFFFF
            bits = min(32, net.prefixlen - start)
            found.append(ipaddress.IPv4Network((address, bits), strict=False))
    return found


def _covers(world: Any, nets: Iterable[Any]) -> bool:
    return list(ipaddress.collapse_addresses(nets)) == [world]


def world_openings(cidrs: Iterable[Any]) -> list[WorldOpening]:
    """Which whole internets the union of `cidrs` opens, however it is spelled.

    The one judgement of "open to the world", shared by `gpu-ci:network` (sshSourceCidrs,
    apiSourceCidrs) and the `no-world-open-ingress` rule so that they cannot disagree: the
    networks are collapsed, so `0.0.0.0/1` with `128.0.0.0/1` is `0.0.0.0/0`, and an IPv6
    network carrying IPv4 addresses (`::ffff:0:0/96`, `2002::/16`: `IPV4_IN_IPV6`) counts
    as those IPv4 addresses. Host bits are ignored; what is no CIDR is skipped.
    """
    v4: list[tuple[str, list[Any]]] = []  # (source, the IPv4 networks it opens)
    v6: list[tuple[str, list[Any]]] = []
    for cidr in cidrs:
        net = network(cidr)
        if isinstance(net, ipaddress.IPv4Network):
            v4.append((cidr, [net]))
        elif isinstance(net, ipaddress.IPv6Network):
            v6.append((cidr, [net]))
    v6_world = _covers(IPV6_WORLD, (n for _, nets in v6 for n in nets))
    if not v6_world:  # else the IPv6 opening names these sources already
        v4 += [(cidr, carried) for cidr, nets in v6 if (carried := embedded_ipv4(nets[0]))]
    openings = []
    for world, sources in ((IPV4_WORLD, v4), (IPV6_WORLD, v6)):
        if _covers(world, (n for _, nets in sources for n in nets)):
            needed = list(sources)
            for source in sources:  # drop each source the others make redundant
                rest = [s for s in needed if s is not source]
                if _covers(world, (n for _, nets in rest for n in nets)):
                    needed = rest
            openings.append(WorldOpening(str(world), tuple(c for c, _ in needed)))
    return openings


def _port_range(options: Any) -> tuple[int, int] | None:
    """(min, max) of a rule's destination ports; None means every port."""
    if not isinstance(options, Mapping):
        return None
    ports = options.get("destinationPortRange", options)  # NSG rules nest it, lists do not
    if not isinstance(ports, Mapping) or ports.get("min") is None:
        return None
    low, high = int(ports["min"]), int(ports.get("max", ports["min"]))
    return low, high


@dataclass(frozen=True)
class _Ingress:
    """One ingress rule (an NSG rule, or one entry of a security list) with a CIDR source."""

    index: int
    """Its place among the stack's ingress rules (orders rules with the same source)."""
    resource: Resource
    protocol: str
    ports: tuple[int, int]
    source: str


def _ingress(resources: Sequence[Resource]) -> list[_Ingress]:
    found: list[_Ingress] = []
    for resource in resources:
        if resource.type == NSG_RULE and resource.props.get("direction") == "INGRESS":
            rules: list[Mapping[str, Any]] = [resource.props]
        elif resource.type in SECURITY_LISTS:
            listed = resource.props.get("ingressSecurityRules") or []
            rules = [r for r in listed if isinstance(r, Mapping)]
        else:
            continue
        for rule in rules:
            source = rule.get("source")
            if network(source) is None:
                continue
            protocol = str(rule.get("protocol", "all"))
            ported = protocol in _PORTED
            ports = (_port_range(rule.get(_PORTED[protocol])) if ported else None) or ALL_PORTS
            found.append(_Ingress(len(found), resource, protocol, ports, str(source)))
    return found


def _unique(items: list[T]) -> list[T]:
    """`items` without repeats (by identity: resources hold unhashable inputs), in order."""
    return list({id(item): item for item in items}.values())


def _source_order(rule: _Ingress) -> tuple[int, int, int, int]:
    """Messages list sources by network, whatever order the engine registered them in."""
    net = network(rule.source)
    assert net is not None  # _ingress keeps only CIDR sources
    return (net.version, int(net.network_address), net.prefixlen, rule.index)


def _open(rules: list[_Ingress], done: set[str]) -> list[tuple[WorldOpening, list[_Ingress]]]:
    """The world openings of `rules` not in `done`, each with the rules that make it."""
    rules = sorted(_unique(rules), key=_source_order)
    openings = world_openings(r.source for r in rules)
    return [
        (o, [r for r in rules if r.source in o.through]) for o in openings if o.world not in done
    ]


def _port_spans(
    mine: list[_Ingress], every: list[_Ingress], done: set[str], allowed: set[int]
) -> list[tuple[tuple[int, int], WorldOpening, list[_Ingress]]]:
    """Port spans of one ported protocol that the union of its rules (and the all-protocol
    ones) opens to a world: the ports are cut where any rule's range starts or ends."""
    cuts = sorted({p for r in mine for p in (r.ports[0], r.ports[1] + 1)})
    spans: dict[WorldOpening, list[tuple[int, int, list[_Ingress]]]] = {}
    for low, end in itertools.pairwise(cuts):
        high = end - 1
        covering = [r for r in mine if r.ports[0] <= low and high <= r.ports[1]]
        if not covering:
            continue
        if high - low + 1 <= len(allowed) and all(p in allowed for p in range(low, high + 1)):
            continue
        for opening, rules in _open(covering + every, done):
            runs = spans.setdefault(opening, [])
            if runs and runs[-1][1] + 1 == low:
                runs[-1] = (runs[-1][0], high, _unique(runs[-1][2] + rules))
            else:
                runs.append((low, high, rules))
    return [((low, high), o, rules) for o, runs in spans.items() for low, high, rules in runs]


def check_world_ingress(
    resources: Sequence[Resource], config: Mapping[str, Any]
) -> list[tuple[Resource, str]]:
    """Every port (and protocol) the stack's ingress rules together open to a whole
    internet, judged on the union of their sources (`world_openings`), not on each spelling:
    NSG rules and security lists alike, since a VNIC admits what any of them admits."""
    allowed = {int(p) for p in config.get("allowedWorldPorts", [])}
    rules = _ingress(resources)
    every = [r for r in rules if r.protocol == "all"]
    found = [(rules_, f"all protocols open to {o}") for o, rules_ in _open(every, set())]
    done = {o.world for o, _ in _open(every, set())}  # the all-protocol openings cover these
    for protocol in dict.fromkeys(r.protocol for r in rules if r.protocol != "all"):
        mine = [r for r in rules if r.protocol == protocol]
        name = _PROTOCOLS.get(protocol, f"protocol {protocol}")
        if protocol not in _PORTED:
            found += [(rules_, f"{name} open to {o}") for o, rules_ in _open(mine + every, done)]
            continue
        for (low, high), opening, rules_ in _port_spans(mine, every, done, allowed):
            if (low, high) == ALL_PORTS:
                ports = f"every {name} port"
            else:
                ports = f"{name} port {low}" if low == high else f"{name} port {low}-{high}"
            found.append((rules_, f"{ports} open to {opening}"))
    hint = "allow the port in the policy config allowedWorldPorts, or narrow the source"
    out = []
    for opened_by, why in found:
        culprits = _unique([r.resource for r in opened_by])
        where = ", ".join(r.where() for r in culprits)
        out.append((culprits[0], f"{where}: {why}; {hint}"))
    return out


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


RULES: tuple[Rule | StackRule, ...] = (
    StackRule(
        "no-world-open-ingress",
        "The stack's OCI NSG rules and security lists, together, open no port to the whole "
        "IPv4 or IPv6 internet, however the sources are spelled, except explicitly allowed "
        "ports.",
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
