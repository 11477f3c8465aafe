"""What the stack knows about its target before anything exists, as recipe facts.

Fact names are AICR's measurement paths (`K8s.server.version`, `OS.release.ID`, ...). A fact
the config does not determine (the kernel, the OS of an `ssh` host or of a pinned image) is
left out, so the recipe constraint on it is reported unchecked, never passed.
"""

from __future__ import annotations

from components.oci.shapes import GPU_SHAPES
from stacks.config import StackConfig

_UBUNTU = "Canonical Ubuntu"


def stack_facts(cfg: StackConfig) -> dict[str, str]:
    facts: dict[str, str] = {}
    if cfg.cluster is not None:
        facts["K8s.server.version"] = cfg.cluster.kubernetes_version
    vm = cfg.vm if cfg.capacity == "vm" else None
    if vm is not None:
        shape = GPU_SHAPES.get(vm.shape)
        if shape is not None:
            facts["GPU.info.type"] = shape.gpuModel
        if vm.image.id is None and vm.image.operatingSystem == _UBUNTU:
            facts["OS.release.ID"] = "ubuntu"
            facts["OS.release.VERSION_ID"] = vm.image.operatingSystemVersion
    if cfg.host is not None:
        facts["Host.driver.branch"] = cfg.host.versions.driverBranch
        facts["Host.toolkit.version"] = cfg.host.versions.toolkit
    return facts
