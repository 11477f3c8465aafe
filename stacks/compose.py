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

from components.host.config.compat import Report
from stacks.config import ConfigError, StackConfig
from stacks.config.param_problems import ParamCheck
from stacks.config.recipe import compatibility, compatibility_problems, prepare_platform
from stacks.config.stack import ARC_CLUSTER_STACK, PLATFORM_CLUSTER_STACK
from stacks.config.views import ArcLayerConfig, VmLayerConfig, stack_layers
from stacks.context import StackContext, StackOutputs
from stacks.layers.cost import cost_estimate

if TYPE_CHECKING:  # each layer (and its provider SDK) loads only when the stack has it
    from components.cluster.reference import ClusterReference
    from components.observability.observability_config import ObservabilityConfig
    from components.platform.platform_config import PlatformConfig
    from components.platform.releases.overrides import PlatformOverrides
    from stacks.layers.capacity_arc import ArcCapacity
    from stacks.layers.cluster import ClusterLayer, PreparedCluster
    from stacks.layers.host import PreparedHosts
    from stacks.layers.platform import PlatformLayer, PreparedPlatformLayer

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

    def stack(self, key: str) -> str:
        """The stack `key` names (`gpu-ci:platform.clusterStack`, ...)."""
        return self._stacks[key]

    def get(self, key: str) -> ClusterReference:
        """The reference for the stack `key` names."""
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
    """Each layer the config asks for, with its narrowed config (`stacks.config.views`) and
    every parameter model it registers with, built from the validated config."""

    vm: VmLayerConfig | None = None
    arc: ArcLayerConfig | None = None
    hosts: PreparedHosts | None = None
    cluster: PreparedCluster | None = None
    platform: PreparedPlatformLayer | None = None
    observability: ObservabilityConfig | None = None
    """Set when the stack deploys its metrics."""
    compatibility: Report | None = None
    """The host with the recipe's GPU software, when the stack deploys both."""


def prepare(
    cfg: StackConfig, ctx: StackContext, secret_keys: frozenset[str] = frozenset()
) -> PreparedStack:
    """Decide which layers run (`stack_layers`) and build what each needs, registering
    nothing: the recipe, each host's steps, each runner's and the cluster's parameters.
    Whatever the recipe or a parameter model refuses is one ConfigError naming the config
    key each problem came from, before the first resource exists."""
    layers = stack_layers(cfg)
    check = ParamCheck(secret_keys)
    platform = resolved = None
    if layers.platform is not None:
        from stacks.layers.platform import PreparedPlatformLayer

        resolved = prepare_platform(cfg, check, ctx.root)
        if resolved is not None:
            platform = PreparedPlatformLayer(layers.platform, resolved)
    hosts = cluster = None
    if layers.host is not None:
        from stacks.layers.host import prepare_hosts

        hosts = prepare_hosts(layers.host, ctx, check)
    if layers.cluster is not None:
        from stacks.layers.cluster import prepare_cluster

        cluster = prepare_cluster(layers.cluster, check)
    compatible = compatibility(cfg, resolved) if resolved is not None else None
    check.problems += compatibility_problems(compatible)
    if check.problems:
        raise ConfigError(ctx.stack, sorted(check.problems, key=lambda p: p.key))
    return PreparedStack(
        layers.vm, layers.arc, hosts, cluster, platform, layers.observability, compatible
    )


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
    if prepared.vm is not None:
        from stacks.layers.capacity_vm import build_vm_capacity, vm_capacity_exports

        capacity = build_vm_capacity(prepared.vm, ctx)
        outputs.layers["capacity"] = vm_capacity_exports(prepared.vm.vm, capacity)
    elif prepared.arc is not None:
        from stacks.layers.capacity_arc import build_arc_capacity

        arc = build_arc_capacity(prepared.arc, ctx, references)
        outputs.layers["capacity"] = arc.exports
    cluster = None
    if prepared.hosts is not None:
        from stacks.layers.host import build_host_layer

        instances = capacity.instances if capacity is not None else []
        hosts = build_host_layer(prepared.hosts, instances, prepared.compatibility)
        outputs.layers["host"] = hosts.outputs
        if prepared.cluster is not None:
            from stacks.layers.cluster import build_cluster_layer

            cluster = build_cluster_layer(prepared.cluster, hosts.machines[0])
            outputs.layers.update(cluster.exports)
    _build_deployed(prepared, cluster, arc, references, outputs)
    if cfg.capacity != "none":
        outputs.layers["cost"] = cost_estimate(cfg)
    return outputs


def _build_deployed(
    prepared: PreparedStack,
    cluster: ClusterLayer | None,
    arc: ArcCapacity | None,
    references: ClusterReferences,
    outputs: StackOutputs,
) -> None:
    """The platform and the observability that watches it, in the order Prometheus's
    source needs (stacks/layers/observability.py)."""
    platform, obs = prepared.platform, prepared.observability
    target = _PlatformTarget(cluster, arc, references, outputs)
    if obs is None:
        if platform is not None:
            target.deploy(platform)
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
    elsewhere = None  # the platform's cluster, when it is not the one watched
    if arc is not None:
        provider: pulumi.ProviderResource = arc.provider
        if platform is not None:
            elsewhere = _other_than_arcs(platform.config, cluster, references)
    elif cluster is not None:
        provider = cluster.cluster.provider
    else:
        provider = references.get(PLATFORM_CLUSTER_STACK).provider
    if elsewhere is not None:
        pulumi.log.warn(
            "gpu-ci:observability: watches ARC's cluster; the platform's "
            f"({elsewhere}) is another, so its GPU metrics are not scraped: one stack watches "
            "one cluster, so deploy that platform from a stack of its own to watch it"
        )
    placement = arc.system if arc is not None else None
    arc_config = prepared.arc.arc if prepared.arc is not None else None
    watched = platform if elsewhere is None else None
    resolved = watched.resolved if watched is not None else None
    if watched is not None and recipe_has_stack(watched.resolved):
        # The recipe's Prometheus: its CRDs come with the platform, the monitors after it.
        layer = target.deploy(watched, overrides=with_dcgm_monitor(obs, watched.resolved))
        monitoring = build_observability_layer(
            obs,
            resolved,
            provider,
            arc=arc_config,
            after=[layer.releases],
            placement=placement,
            hosts=prepared.hosts,
        )
    else:  # the CRDs first, then what uses them
        waits = list(arc.system_after) if arc is not None else []
        monitoring = build_observability_layer(
            obs,
            resolved,
            provider,
            arc=arc_config,
            after=waits,
            placement=placement,
            hosts=prepared.hosts,
        )
        if watched is not None:
            target.deploy(
                watched, after=[monitoring], overrides=with_dcgm_monitor(obs, watched.resolved)
            )
        elif platform is not None:
            target.deploy(platform)
    outputs.layers["observability"] = observability_exports(obs, resolved, monitoring)


@dataclass(frozen=True)
class _PlatformTarget:
    """Deploys the platform onto the cluster the stack has for it (`build_platform_layer`)."""

    cluster: ClusterLayer | None
    arc: ArcCapacity | None
    references: ClusterReferences
    outputs: StackOutputs

    def deploy(
        self,
        platform: PreparedPlatformLayer,
        *,
        after: list[pulumi.Resource] | None = None,
        overrides: PlatformOverrides | None = None,
    ) -> PlatformLayer:
        from stacks.layers.platform import build_platform_layer

        layer = build_platform_layer(
            platform,
            self.cluster,
            self.references,
            arc=self.arc,
            after=after,
            overrides=overrides,
        )
        self.outputs.layers["platform"] = layer.exports
        return layer


def _other_than_arcs(
    platform: PlatformConfig, cluster: ClusterLayer | None, references: ClusterReferences
) -> str | None:
    """The platform's cluster, where it is not ARC's: this stack's nvkind cluster, or the
    stack `clusterStack` names, when ARC's names another."""
    if cluster is not None:
        return "gpu-ci:cluster, this stack's nvkind cluster"
    if platform.clusterStack is not None and not references.shared(
        PLATFORM_CLUSTER_STACK, ARC_CLUSTER_STACK
    ):
        return platform.clusterStack
    return None
