"""The one function that turns a validated config into the stack's resource graph.

Each layer is a component; edges between layers are explicit `depends_on`. `__main__.py`
and the offline plan both call `build_graph`, so the plan is the program.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stacks.config import StackConfig
from stacks.config.stack import ARC_CLUSTER_STACK, PLATFORM_CLUSTER_STACK

if TYPE_CHECKING:  # pulumi-kubernetes loads only when a stack reads a cluster
    from components.cluster_reference import ClusterReference

REFERENCE_NAMES = {PLATFORM_CLUSTER_STACK: "cluster", ARC_CLUSTER_STACK: "arc-cluster"}
"""The name of the reference a key's stack gets when another stack already has `cluster`."""


@dataclass(frozen=True)
class StackContext:
    """Who is deploying: the Pulumi project and stack names."""

    project: str
    stack: str


@dataclass
class StackOutputs:
    """Each layer's typed export (an Output of its contract model), by export name."""

    layers: dict[str, Any] = field(default_factory=dict)

    def export(self) -> None:
        import pulumi  # noqa: PLC0415

        for name, value in self.layers.items():
            pulumi.export(name, value)


def tags(cfg: StackConfig, ctx: StackContext) -> dict[str, str]:
    """Freeform tags every OCI resource carries: who owns it and which stack made it."""
    return {
        "gpu-ci-project": ctx.project,
        "gpu-ci-stack": ctx.stack,
        "gpu-ci-owner": cfg.owner or "unset",
    }


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

    def get(self, key: str) -> ClusterReference:
        """The reference for the stack `key` names (`gpu-ci:platform.clusterStack`, ...)."""
        from components.cluster_reference import (  # noqa: PLC0415
            ClusterReference,
            ClusterReferenceArgs,
        )

        stack = self._stacks[key]
        if stack not in self._made:
            self._made[stack] = ClusterReference(
                self._names[stack],
                ClusterReferenceArgs(stack=stack, config_key=" and ".join(self._keys[stack])),
            )
        return self._made[stack]


def build_graph(cfg: StackConfig, ctx: StackContext) -> StackOutputs:
    """Register every layer the config asks for; return their typed outputs."""
    outputs = StackOutputs()
    references = ClusterReferences(cfg)
    platform = None
    if cfg.platform is not None:  # resolved before anything registers: errors stop early
        from stacks.platform_layer import prepare_platform  # noqa: PLC0415

        platform = prepare_platform(cfg)
    capacity = None
    if cfg.capacity == "vm":
        capacity = _vm_capacity(cfg, ctx)
        outputs.layers["capacity"] = _vm_capacity_outputs(cfg, capacity)
    elif cfg.capacity == "arc":
        from stacks.arc_layer import build_arc_capacity  # noqa: PLC0415

        outputs.layers["capacity"] = build_arc_capacity(cfg, ctx, references)
    cluster = None
    if cfg.host is not None:
        from stacks.host_layer import build_host_layer  # noqa: PLC0415

        hosts = build_host_layer(cfg, ctx, capacity)
        outputs.layers["host"] = hosts.outputs
        if cfg.cluster is not None:
            from stacks.cluster_layer import build_cluster_layer  # noqa: PLC0415

            cluster = build_cluster_layer(cfg, hosts.machines[0])
            outputs.layers.update(cluster.exports)
    if platform is not None:
        from stacks.platform_layer import build_platform_layer  # noqa: PLC0415

        outputs.layers["platform"] = build_platform_layer(cfg, platform, cluster, references)
    if cfg.capacity != "none":
        outputs.layers["cost"] = _costs(cfg)
    return outputs


def _costs(cfg: StackConfig) -> dict[str, Any]:
    """The monthly compute estimate: a known value, so a preview shows it."""
    import pulumi  # noqa: PLC0415

    from stacks.costs import capacity_costs  # noqa: PLC0415
    from stacks.shapes import GPU_SHAPES  # noqa: PLC0415

    costs, unpriced = capacity_costs(cfg.capacity, cfg.vm, cfg.arc, cfg.usage, GPU_SHAPES)
    for shape in unpriced:
        pulumi.log.warn(f"no cost estimate for {shape}: stacks/costs.py has no price for its GPU")
    return costs.model_dump(mode="json")


def _vm_capacity(cfg: StackConfig, ctx: StackContext) -> Any:
    # Imported per layer: provider SDKs are heavy, and a stack imports only what it uses.
    from components.vm_capacity import VmCapacity, VmCapacityArgs  # noqa: PLC0415

    assert cfg.vm is not None and cfg.compartmentId is not None  # guaranteed by validation
    return VmCapacity(
        "capacity",
        VmCapacityArgs(
            project=ctx.project,
            stack=ctx.stack,
            compartment_id=cfg.compartmentId,
            tenancy_id=cfg.tenancyId,
            vm=cfg.vm,
            network=cfg.network,
            tags=tags(cfg, ctx),
        ),
    )


def _vm_capacity_outputs(cfg: StackConfig, capacity: Any) -> Any:
    from stacks.outputs import vm_capacity_outputs  # noqa: PLC0415

    assert cfg.vm is not None
    return vm_capacity_outputs(
        shape=cfg.vm.shape,
        instance_ids=[i.instance_id for i in capacity.instances],
        public_ips=[i.public_ip for i in capacity.instances],
        private_ips=[i.private_ip for i in capacity.instances],
        subnet_id=capacity.network.subnet_id,
        nsg_id=capacity.network.nsg_id,
    )
