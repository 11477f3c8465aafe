"""Whether the recipe's device plugin shares each GPU (time-slicing or MPS), and how many ways.

A shared GPU is advertised as `replicas` `nvidia.com/gpu`, so a pod given two may get one
physical GPU twice: a multi-GPU job (NCCL refuses two ranks on one device) must not run on
it, and a GPU-count check counts `replicas` per GPU.

The device plugin reads its config from a ConfigMap the GPU operator's values name
(ClusterPolicy `spec.devicePlugin.config.name` / `.default`: shared/upstream/crds/
nvidia.com_clusterpolicies.yaml, gpu-operator @ a22dbf67; chart values `devicePlugin.config`
with `create`/`data` for an inline one: shared/upstream/charts/gpu-operator/values.yaml,
lines 251-279), or the standalone device plugin chart's `config.name`/`.default`/`.map`. The
config format is the device plugin's (`version: v1`, `sharing.timeSlicing.resources[]` or
`sharing.mps.resources[]`, each `name` + `replicas`), as in Trainer's
shared/upstream/kubeflow-trainer/gpu-time-slicing.yml and NVIDIA's GPU sharing guide
(gpu-operator docs `gpu-sharing.rst`), read as the plugin reads it
(`device_plugin_config.py`: field names in any case, `name: gpu` meaning nvidia.com/gpu).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from components.platform.releases.component_plan import ComponentPlan
from components.platform.releases.device_plugin_config import STRATEGIES, shared_replicas
from core import read_yaml
from core.read_limits import CATALOG_FILE
from core.read_yaml import SAFE
from core.yaml_source import YamlRefusedError

GPU_RESOURCE = "nvidia.com/gpu"
DEVICE_PLUGIN_CONFIG = {
    "gpu-operator": "devicePlugin.config",
    "nvidia-device-plugin": "config",
}
"""Where each chart's values name the device plugin's config (component name -> path)."""


@dataclass(frozen=True)
class GpuSharing:
    """The recipe's device plugin shares each GPU `replicas` ways."""

    strategy: str
    replicas: int
    component: str
    """The component whose values point the device plugin at the config."""
    path: str
    """That values path (`devicePlugin.config`)."""
    config_map: str
    shipped_by: str
    """The component whose manifests hold the ConfigMap (`component` for an inline one)."""

    def describe(self) -> str:
        return (
            f"{self.component} shares each GPU {self.replicas} ways ({self.strategy}, "
            f"ConfigMap {self.config_map} of {self.shipped_by})"
        )

    def switch_off(self) -> list[str]:
        """The `gpu-ci:platform.set` entries that turn the sharing off."""
        clear = f"{self.component}:{self.path}.name="
        if self.shipped_by == self.component:
            return [clear]
        return [f"{self.shipped_by}:enabled=false", clear]


def _at(values: Mapping[str, Any], path: str) -> Any:
    node: Any = values
    for key in path.split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _replicas(text: object) -> tuple[str, int] | None:
    """(strategy, replicas) of one device plugin config (YAML text), if it shares GPUs."""
    if not isinstance(text, str):
        return None
    try:  # the careful reader, bounded like a catalog file (the config is one's content)
        parsed = read_yaml.load(text, name="device plugin config", limits=CATALOG_FILE, schema=SAFE)
    except YamlRefusedError:
        return None  # not a config the plugin could read either: it shares nothing
    shared = shared_replicas(parsed.data, GPU_RESOURCE)  # as the plugin reads it
    return next(((s, shared[s]) for s in STRATEGIES if s in shared), None)


def _entries(data: Mapping[str, Any], default: object) -> list[object]:
    """The configs the plugin may use: the default one if named, else every one."""
    if isinstance(default, str) and default in data:
        return [data[default]]
    return list(data.values())


def _config_map(
    components: Sequence[ComponentPlan], name: str
) -> tuple[str, Mapping[str, Any]] | None:
    for component in components:
        for obj in (*component.pre_manifests, *component.manifests):
            if obj.kind == "ConfigMap" and obj.name == name:
                data = obj.obj.get("data")
                return component.name, data if isinstance(data, Mapping) else {}
    return None


def _sharing_of(
    component: ComponentPlan, path: str, components: Sequence[ComponentPlan]
) -> GpuSharing | None:
    config = _at(component.values, path)
    if not isinstance(config, Mapping):
        return None
    name, default = str(config.get("name") or ""), config.get("default")
    inline = config.get("data") if config.get("create") else config.get("map")
    if isinstance(inline, Mapping) and inline:  # the chart makes the ConfigMap itself
        found: tuple[str, Mapping[str, Any]] | None = (component.name, inline)
    else:
        found = _config_map(components, name) if name else None
    if found is None:
        return None
    shipped_by, data = found
    shares = [r for r in map(_replicas, _entries(data, default)) if r is not None]
    if not shares:
        return None
    strategy, replicas = max(shares, key=lambda share: share[1])
    return GpuSharing(strategy, replicas, component.name, path, name, shipped_by)


def gpu_sharing(components: Sequence[ComponentPlan]) -> GpuSharing | None:
    """How the deployed device plugin shares GPUs (`components`: a plan's, as deployed), or
    None when each GPU is one resource."""
    for component in components:
        path = DEVICE_PLUGIN_CONFIG.get(component.name)
        if path is not None and component.chart is not None:
            sharing = _sharing_of(component, path, components)
            if sharing is not None:
                return sharing
    return None
