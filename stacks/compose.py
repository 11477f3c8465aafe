"""The one function that turns a validated config into the stack's resource graph.

Each layer is a component; edges between layers are explicit `depends_on`. `__main__.py`
and the offline plan both call `build_graph`, so the plan is the program. It runs `prepare`
first: every parameter model a layer registers with (the recipe, each host step, each
runner, the cluster's steps) is built from the validated config, so whatever one refuses
is one ConfigError at its config key, and nothing has registered yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from stacks.config import ConfigError, StackConfig
from stacks.config.problems import ParamCheck, ParamKeys, Problem, param_problems
from stacks.config.stack import ARC_CLUSTER_STACK, NAMESPACE, PLATFORM_CLUSTER_STACK

if TYPE_CHECKING:  # pulumi-kubernetes loads only when a stack reads a cluster
    from components.cluster.reference import ClusterReference
    from stacks.layers.cluster import PreparedCluster
    from stacks.layers.host import PreparedHosts
    from stacks.layers.platform import PreparedPlatform

REFERENCE_NAMES = {PLATFORM_CLUSTER_STACK: "cluster", ARC_CLUSTER_STACK: "arc-cluster"}
"""The name of the reference a key's stack gets when another stack already has `cluster`."""

# Where the fields of the host-step models (components/host/params.py) come from in the
# config: what `prepare` (and the program's last resort) reports a refused value at.
_VERSIONS = f"{NAMESPACE}:host.versions"
HOST_KEYS = ParamKeys(
    f"{NAMESPACE}:host",
    {
        "driver_package": f"{_VERSIONS}.driverBranch",
        "docker_user": f"{NAMESPACE}:host.dockerUser",
        "toolkit_version": f"{_VERSIONS}.toolkit",
        "cdi_enabled": f"{NAMESPACE}:host.cdi",
        "reboot": f"{NAMESPACE}:host.reboot",
        **{f"{tool}_url": f"{_VERSIONS}.{tool}" for tool in ("kind", "kubectl", "helm")},
        **{f"{tool}_sha256": f"{_VERSIONS}.{tool}.sha256" for tool in ("kind", "kubectl", "helm")},
        "helm_archive_member": f"{NAMESPACE}:host.arch",
        "nvkind_url": f"{_VERSIONS}.nvkind.binaryUrl",
        "nvkind_sha256": f"{_VERSIONS}.nvkind.binarySha256",
        "nvkind_commit": f"{_VERSIONS}.nvkind.commit",
        "ToolsParams.": f"{_VERSIONS}.nvkind",
        "expected_gpus": f"{NAMESPACE}:host.gpus",
    },
)
AUTHORIZED_KEYS = ParamKeys(
    f"{NAMESPACE}:vm.sshAuthorizedKeys",
    {"user": f"{NAMESPACE}:host.user", "keys": f"{NAMESPACE}:vm.sshAuthorizedKeys"},
)
RUNNER_KEYS = ParamKeys(
    f"{NAMESPACE}:runner",
    {
        "github_url": f"{NAMESPACE}:runner.url",
        "github_scope": f"{NAMESPACE}:runner.url",
        "app_id": f"{NAMESPACE}:runner.githubApp.appId",
        "installation_id": f"{NAMESPACE}:runner.githubApp.installationId",
        "runner_labels": f"{NAMESPACE}:runner.labels",
        "runner_group": f"{NAMESPACE}:runner.group",
        "ephemeral": f"{NAMESPACE}:runner.ephemeral",
    },
)
CLUSTER_KEYS = ParamKeys(
    f"{NAMESPACE}:cluster",
    {
        "cluster_name": f"{NAMESPACE}:cluster.name",
        "node_image": f"{NAMESPACE}:cluster.nodeImage",
        "api_server_port": f"{NAMESPACE}:cluster.apiServerPort",
        "expected_gpus": f"{NAMESPACE}:host.gpus",
    },
)
_MODELS = (
    (HOST_KEYS, "CloudInit NvidiaDriver Docker ContainerToolkit ToolkitConfig Inotify"),
    (HOST_KEYS, "Tools Verify"),
    (AUTHORIZED_KEYS, "AuthorizedKeys"),
    (RUNNER_KEYS, "GithubAppKey GithubApp GithubRunner GithubRunnerRemove"),
    (CLUSTER_KEYS, "NvkindCluster NvkindClusterDelete ClusterKubeconfig ClusterReady"),
)
MODEL_KEYS = {f"{name}Params": keys for keys, names in _MODELS for name in names.split()}
"""The config part each parameter model is built from, by model name."""


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
        from components.cluster.reference import (  # noqa: PLC0415
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


@dataclass(frozen=True)
class PreparedStack:
    """Every parameter model the layers register with, built from the validated config."""

    platform: PreparedPlatform | None = None
    hosts: PreparedHosts | None = None
    cluster: PreparedCluster | None = None


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
        from stacks.layers.platform import prepare_platform  # noqa: PLC0415

        platform = prepare_platform(cfg, check)
    hosts = cluster = None
    if cfg.host is not None:
        from stacks.layers.host import host_gpus, prepare_hosts  # noqa: PLC0415

        hosts = prepare_hosts(cfg, ctx, check)
        if cfg.cluster is not None:
            from stacks.layers.cluster import prepare_cluster  # noqa: PLC0415

            cluster = prepare_cluster(cfg, host_gpus(cfg), check)
    if check.problems:
        raise ConfigError(ctx.stack, sorted(check.problems, key=lambda p: p.key))
    return PreparedStack(platform, hosts, cluster)


def unprepared_problems(error: ValidationError, secret_keys: frozenset[str]) -> list[Problem]:
    """A parameter model's refusal that `prepare` did not see, at the config part its
    model is built from (the program's last resort: no traceback, ever)."""
    keys = MODEL_KEYS.get(error.title)
    if keys is not None:
        return param_problems(error, keys, secret_keys)
    return [
        Problem(
            NAMESPACE,
            f"{error.title}.{'.'.join(str(part) for part in e['loc'])}: "
            + e["msg"].removeprefix("Value error, "),
        )
        for e in error.errors(include_url=False)
    ]


def build_graph(
    cfg: StackConfig, ctx: StackContext, *, secret_keys: frozenset[str] = frozenset()
) -> StackOutputs:
    """Register every layer the config asks for; return their typed outputs."""
    outputs = StackOutputs()
    references = ClusterReferences(cfg)
    prepared = prepare(cfg, ctx, secret_keys)  # every check, before anything registers
    platform = prepared.platform
    capacity = None
    if cfg.capacity == "vm":
        capacity = _vm_capacity(cfg, ctx)
        outputs.layers["capacity"] = _vm_capacity_outputs(cfg, capacity)
    elif cfg.capacity == "arc":
        from stacks.layers.capacity_arc import build_arc_capacity  # noqa: PLC0415

        outputs.layers["capacity"] = build_arc_capacity(cfg, ctx, references)
    cluster = None
    if cfg.host is not None:
        from stacks.layers.host import build_host_layer  # noqa: PLC0415

        assert prepared.hosts is not None
        hosts = build_host_layer(cfg, ctx, capacity, prepared.hosts)
        outputs.layers["host"] = hosts.outputs
        if cfg.cluster is not None:
            from stacks.layers.cluster import build_cluster_layer  # noqa: PLC0415

            assert prepared.cluster is not None
            cluster = build_cluster_layer(cfg, hosts.machines[0], prepared.cluster)
            outputs.layers.update(cluster.exports)
    if platform is not None:
        from stacks.layers.platform import build_platform_layer  # noqa: PLC0415

        outputs.layers["platform"] = build_platform_layer(cfg, platform, cluster, references)
    if cfg.capacity != "none":
        outputs.layers["cost"] = _costs(cfg)
    return outputs


def _costs(cfg: StackConfig) -> dict[str, Any]:
    """The monthly compute estimate: a known value, so a preview shows it."""
    import pulumi  # noqa: PLC0415

    from components.oci.shapes import GPU_SHAPES  # noqa: PLC0415
    from stacks.layers.cost import capacity_costs  # noqa: PLC0415

    costs, unpriced = capacity_costs(cfg.capacity, cfg.vm, cfg.arc, cfg.usage, GPU_SHAPES)
    for shape in unpriced:
        pulumi.log.warn(
            f"no cost estimate for {shape}: stacks/layers/cost.py has no price for its GPU"
        )
    return costs.model_dump(mode="json")


def _vm_capacity(cfg: StackConfig, ctx: StackContext) -> Any:
    # Imported per layer: provider SDKs are heavy, and a stack imports only what it uses.
    from components.oci.vm_capacity import VmCapacity, VmCapacityArgs  # noqa: PLC0415

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
