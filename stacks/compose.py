"""The one function that turns a validated config into the stack's resource graph.

Each layer is a component; edges between layers are explicit `depends_on`. `__main__.py`
and the offline plan both call `build_graph`, so the plan is the program. It runs `prepare`
first: every parameter model a layer registers with (the recipe, each host step, each
runner, the cluster's steps) is built from the validated config, so whatever one refuses
is one ConfigError at its config key, and nothing has registered yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pulumi

from components.host.compat import Report
from stacks.config import ConfigError, StackConfig
from stacks.config.param_problems import ParamCheck
from stacks.config.recipe import (
    PreparedPlatform,
    compatibility,
    compatibility_problems,
    prepare_platform,
)
from stacks.config.stack import ARC_CLUSTER_STACK, PLATFORM_CLUSTER_STACK
from stacks.context import StackContext, StackOutputs
from stacks.layers.cost import cost_estimate

if TYPE_CHECKING:  # each layer (and its provider SDK) loads only when the stack has it
    from components.cluster.reference import ClusterReference
    from stacks.layers.capacity_arc import ArcCapacity
    from stacks.layers.cluster import ClusterLayer, PreparedCluster
    from stacks.layers.host import PreparedHosts

REFERENCE_NAMES = {PLATFORM_CLUSTER_STACK: "cluster", ARC_CLUSTER_STACK: "arc-cluster"}
"""The name of the reference a key's stack gets when another stack already has `cluster`."""


class ClusterReferences:
    """One ClusterReference (and Kubernetes provider) per stack the `clusterStack` keys name.

    Keys naming the same stack share its reference: two would be one URN twice, which the
    engine refuses. The first stack (the platform's, if set) is `cluster`, the URN a stack
    with one reference always had; a second, different stack gets its key's name in
    REFERENCE_NAMES. Each registers when a layer first asks for it, where it always did.
    """

    def __init__(self, cfg: StackConfig) -> None:
        self._stacks = cfg.cluster_stacks()  # key -> stack
        self._keys: dict[str, list[str]] = {}  # stack -> the keys that name it
        self._names: dict[str, str] = {}  # stack -> its reference's name
        for key, stack in self._stacks.items():
            if stack not in self._keys:
                self._names[stack] = REFERENCE_NAMES[key] if self._names else "cluster"
            self._keys.setdefault(stack, []).append(key)
        self._made: dict[str, ClusterReference] = {}

    def shared(self, key: str, other: str) -> bool:
        """Whether two `clusterStack` keys name one stack (so one cluster)."""
        return key in self._stacks and self._stacks.get(key) == self._stacks.get(other)

    def get(self, key: str) -> ClusterReference:
        """The reference for the stack `key` names (`gpu-ci:platform.clusterStack`, ...)."""
        from components.cluster.reference import ClusterReference, ClusterReferenceArgs

        stack = self._stacks[key]
        if stack not in self._made:
            self._made[stack] = ClusterReference(
                self._names[stack],
                ClusterReferenceArgs(stack=stack, config_key=" and ".join(self._keys[stack])),
            )
        return self._made[stack]


@dataclass(frozen=True)
class PreparedStack:
    """Every parameter model the layers register with, built from the validated config."""

    platform: PreparedPlatform | None = None
    hosts: PreparedHosts | None = None
    cluster: PreparedCluster | None = None
    compatibility: Report | None = None
    """The host with the recipe's GPU software, when the stack deploys both."""


def prepare(
    cfg: StackConfig, ctx: StackContext, secret_keys: frozenset[str] = frozenset()
) -> PreparedStack:
    """Build what every layer needs, registering nothing: the recipe, each host's steps,
    each runner's and the cluster's parameters. Whatever the recipe or a parameter model
    refuses is one ConfigError naming the config key each problem came from, before the
    first resource exists."""
    check = ParamCheck(secret_keys)
    platform = None
    if cfg.platform is not None:
        platform = prepare_platform(cfg, check)
    hosts = cluster = None
    if cfg.host is not None:
        from stacks.layers.host import host_gpus, prepare_hosts

        hosts = prepare_hosts(cfg, ctx, check)
        if cfg.cluster is not None:
            from stacks.layers.cluster import prepare_cluster

            cluster = prepare_cluster(cfg, host_gpus(cfg), check)
    compatible = compatibility(cfg, platform) if platform is not None else None
    check.problems += compatibility_problems(compatible)
    if check.problems:
        raise ConfigError(ctx.stack, sorted(check.problems, key=lambda p: p.key))
    return PreparedStack(platform, hosts, cluster, compatible)


def build_graph(
    cfg: StackConfig, ctx: StackContext, *, secret_keys: frozenset[str] = frozenset()
) -> StackOutputs:
    """Register every layer the config asks for; return their typed outputs.

    Layers are imported here, when the config has them: provider SDKs are heavy (0.3 s
    or more each), and a stack loads only those its layers use."""
    outputs = StackOutputs()
    references = ClusterReferences(cfg)
    prepared = prepare(cfg, ctx, secret_keys)  # every check, before anything registers
    capacity = arc = None
    if cfg.capacity == "vm":
        from stacks.layers.capacity_vm import build_vm_capacity, vm_capacity_exports

        capacity = build_vm_capacity(cfg, ctx)
        outputs.layers["capacity"] = vm_capacity_exports(cfg, capacity)
    elif cfg.capacity == "arc":
        from stacks.layers.capacity_arc import build_arc_capacity

        arc = build_arc_capacity(cfg, ctx, references)
        outputs.layers["capacity"] = arc.exports
    cluster = None
    if prepared.hosts is not None:
        from stacks.layers.host import build_host_layer

        hosts = build_host_layer(cfg, ctx, capacity, prepared.hosts, prepared.compatibility)
        outputs.layers["host"] = hosts.outputs
        if prepared.cluster is not None:
            from stacks.layers.cluster import build_cluster_layer

            cluster = build_cluster_layer(cfg, hosts.machines[0], prepared.cluster)
            outputs.layers.update(cluster.exports)
    _build_deployed(cfg, prepared, cluster, arc, references, outputs)
    if cfg.capacity != "none":
        outputs.layers["cost"] = cost_estimate(cfg)
    return outputs


def _build_deployed(
    cfg: StackConfig,
    prepared: PreparedStack,
    cluster: ClusterLayer | None,
    arc: ArcCapacity | None,
    references: ClusterReferences,
    outputs: StackOutputs,
) -> None:
    """The platform and the observability that watches it, in the order Prometheus's
    source needs (stacks/layers/observability.py)."""
    platform = None
    if cfg.platform is not None:
        from stacks.layers.platform import build_platform_layer

        platform = build_platform_layer
    if not cfg.observability_on:
        if platform is not None:
            assert prepared.platform is not None
            layer = platform(cfg, prepared.platform, cluster, references, arc=arc)
            outputs.layers["platform"] = layer.exports
        return
    from stacks.layers.observability import (
        build_observability_layer,
        observability_exports,
        recipe_has_stack,
        with_dcgm_monitor,
    )

    # One cluster is watched: ARC's, where the runners' job metrics come from, else the
    # platform's (this stack's nvkind cluster or another stack's). A platform on another
    # cluster than ARC's gets no DCGM monitor: that cluster has no Prometheus from here.
    if arc is not None:
        provider: pulumi.ProviderResource = arc.provider
        elsewhere = cfg.platform is not None and (
            cluster is not None
            or (
                cfg.platform.clusterStack is not None
                and not references.shared(PLATFORM_CLUSTER_STACK, ARC_CLUSTER_STACK)
            )
        )
    elif cluster is not None:
        provider, elsewhere = cluster.cluster.provider, False
    else:
        provider, elsewhere = references.get(PLATFORM_CLUSTER_STACK).provider, False
    if elsewhere:
        assert cfg.platform is not None
        where = cfg.platform.clusterStack or "gpu-ci:cluster, this stack's nvkind cluster"
        pulumi.log.warn(
            "gpu-ci:observability: watches ARC's cluster; the platform's "
            f"({where}) is another, so its GPU metrics are not scraped: one stack watches "
            "one cluster, so deploy that platform from a stack of its own to watch it"
        )
    placement = arc.system if arc is not None else None
    waits = list(arc.system_after) if arc is not None else []
    monitoring = None
    watched = None if elsewhere else prepared.platform
    if not recipe_has_stack(watched):  # the CRDs first, then what uses them
        monitoring = build_observability_layer(
            cfg, watched, provider, after=waits, placement=placement
        )
    if platform is not None:
        assert prepared.platform is not None
        layer = platform(
            cfg,
            prepared.platform,
            cluster,
            references,
            arc=arc,
            after=[monitoring] if monitoring is not None and not elsewhere else None,
            overrides=(
                prepared.platform.overrides
                if elsewhere
                else with_dcgm_monitor(cfg, prepared.platform)
            ),
        )
        outputs.layers["platform"] = layer.exports
        if monitoring is None:  # the recipe's Prometheus: its CRDs come with the platform
            monitoring = build_observability_layer(
                cfg, prepared.platform, provider, after=[layer.releases], placement=placement
            )
    assert monitoring is not None
    outputs.layers["observability"] = observability_exports(cfg, watched, monitoring)
