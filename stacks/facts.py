"""What the stack knows about its target before anything exists, as recipe facts.

Fact names are AICR's measurement paths (`K8s.server.version`, `OS.release.ID`, ...). A fact
the config does not determine (the kernel, the OS of an `ssh` host or of a pinned image) is
left out, so the recipe constraint on it is reported unchecked, never passed.
"""

from __future__ import annotations

from components.oci.shapes import GPU_SHAPES
from stacks.config.views import ClusterLayerConfig, VmHosts

_UBUNTU = "Canonical Ubuntu"


def stack_facts(cluster: ClusterLayerConfig) -> dict[str, str]:
    """What the config says about the cluster this stack creates, and the host it is on."""
    facts = {"K8s.server.version": cluster.spec.kubernetes_version}
    target = cluster.hosts.target
    if isinstance(target, VmHosts):
        shape = GPU_SHAPES.get(target.vm.shape)
        if shape is not None:
            facts["GPU.info.type"] = shape.gpuModel
        image = target.vm.image
        if image.id is None and image.operatingSystem == _UBUNTU:
            facts["OS.release.ID"] = "ubuntu"
            facts["OS.release.VERSION_ID"] = image.operatingSystemVersion
    versions = cluster.hosts.host.versions
    facts["Host.driver.branch"] = versions.driverBranch
    facts["Host.toolkit.version"] = versions.toolkit
    return facts
