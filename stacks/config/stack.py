"""The whole `gpu-ci:` config namespace of one stack.

Each field is one top-level key of `Pulumi.<stack>.yaml` (`gpu-ci:capacity`, `gpu-ci:vm`,
...). The stack's layers are chosen here: `capacity` picks how GPUs are provided; the host,
cluster and platform layers add their own keys. Conditional requirements are field
validators (fields are declared after what they depend on) so that every problem in a
config is reported in one pass, under its own key.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from stacks.config.base import ConfigModel, Ocid
from stacks.config.network import NetworkConfig
from stacks.config.vm import VmCapacityConfig

NAMESPACE = "gpu-ci"
CapacityKind = Literal["vm", "none"]

# Why a key is needed once the stack creates OCI resources, and how to set it.
_WHY = {
    "compartmentId": "the OCI compartment the VMs and network go in "
    "(pulumi config set gpu-ci:compartmentId ocid1.compartment...)",
    "owner": "every GPU instance is tagged with the team or person who pays for it "
    "(pulumi config set gpu-ci:owner my-team)",
}


class StackConfig(ConfigModel):
    """Validated stack config. Build it with `stacks.config.load_config`."""

    capacity: CapacityKind = "none"
    vm: VmCapacityConfig | None = None
    compartmentId: Ocid | None = None
    tenancyId: Ocid | None = None
    owner: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$")
    network: NetworkConfig = Field(default_factory=NetworkConfig)

    @field_validator("vm")
    @classmethod
    def _vm_matches_capacity(
        cls, vm: VmCapacityConfig | None, info: ValidationInfo
    ) -> VmCapacityConfig | None:
        capacity = info.data.get("capacity")
        if capacity == "vm":
            return vm or VmCapacityConfig()
        if vm is not None and capacity is not None:
            raise ValueError(
                f"set, but gpu-ci:capacity is {capacity!r}; set gpu-ci:capacity to 'vm' "
                "or remove gpu-ci:vm"
            )
        return vm

    @field_validator("compartmentId", "owner")
    @classmethod
    def _required_for_oci(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and info.data.get("capacity") == "vm":
            assert info.field_name is not None
            raise ValueError(f"required when gpu-ci:capacity is 'vm': {_WHY[info.field_name]}")
        return value

    @field_validator("tenancyId")
    @classmethod
    def _tenancy_for_fallbacks(cls, value: str | None, info: ValidationInfo) -> str | None:
        vm = info.data.get("vm")
        if value is None and vm is not None and len(vm.availabilityDomains) > 1:
            raise ValueError(
                "required when gpu-ci:vm.availabilityDomains lists fallbacks: capacity "
                "reports that pick the first AD with free capacity are made in the root "
                "compartment (pulumi config set gpu-ci:tenancyId ocid1.tenancy...)"
            )
        return value
