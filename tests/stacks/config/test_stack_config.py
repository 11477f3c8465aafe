"""Stack config: valid configs load; every bad key is named once, in one message."""

from __future__ import annotations

import pytest

from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.stacks.stack_helpers import COMPARTMENT, SSH_KEY, flat, vm_stack


def load(values: dict[str, object], secret: set[str] | None = None) -> StackConfig:
    return load_config(raw_from_flat(flat(values), secret or set()), "test")


def problems(values: dict[str, object], secret: set[str] | None = None) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(values, secret)
    return [str(p) for p in caught.value.problems]


def test_defaults_are_the_kubeflow_runner() -> None:
    cfg = load(vm_stack())
    assert cfg.vm is not None
    assert cfg.vm.shape == "VM.GPU.A10.1"
    assert cfg.vm.bootVolumeSizeGbs == 512
    assert cfg.vm.availabilityDomains == [0]
    assert cfg.vm.image.operatingSystemVersion == "24.04"
    assert cfg.network.vcnCidr == "10.0.0.0/16"
    assert cfg.network.apiSourceCidrs == []


def test_capacity_vm_without_a_vm_block_uses_defaults() -> None:
    cfg = load(vm_stack(**{"gpu-ci:vm": None}))
    assert cfg.vm is not None and cfg.vm.count == 1


def test_no_capacity_needs_no_cloud_keys() -> None:
    cfg = load({"gpu-ci:host": {"target": "local"}})
    assert cfg.capacity == "none" and cfg.vm is None and cfg.compartmentId is None


def test_shape_typo_names_the_key_and_suggests_the_shape() -> None:
    [problem] = problems(vm_stack(**{"gpu-ci:vm": {"shape": "VM.GPU.A1O.1"}}))
    assert problem.startswith("gpu-ci:vm.shape: unknown GPU shape (did you mean 'VM.GPU.A10.1'?)")
    assert "VM.GPU.A10.2" in problem  # what is allowed
    assert problem.endswith("[given: 'VM.GPU.A1O.1']")


def test_unlisted_shape_needs_the_explicit_opt_in() -> None:
    cfg = load(vm_stack(**{"gpu-ci:vm": {"shape": "VM.GPU.X9.1", "allowUnlistedShape": True}}))
    assert cfg.vm is not None and cfg.vm.shape == "VM.GPU.X9.1"
    assert problems(vm_stack(**{"gpu-ci:vm": {"shape": "VM.GPU.X9.1"}}))[0].startswith(
        "gpu-ci:vm.shape: unknown GPU shape"
    )


def test_unknown_keys_at_every_level_with_did_you_mean() -> None:
    found = problems(vm_stack(**{"gpu-ci:netwrk": {}, "gpu-ci:vm": {"bootVolumeSizeGb": 100}}))
    assert found[0].startswith(
        "gpu-ci:netwrk: unknown key (did you mean 'network'?); allowed keys:"
    )
    assert found[1].startswith(
        "gpu-ci:vm.bootVolumeSizeGb: unknown key (did you mean 'bootVolumeSizeGbs'?)"
    )


def test_missing_compartment_and_owner_for_vm_capacity() -> None:
    found = problems(vm_stack(**{"gpu-ci:compartmentId": None, "gpu-ci:owner": None}))
    assert [p.split(":")[1] for p in found] == ["compartmentId", "owner"]
    assert "pulumi config set gpu-ci:compartmentId" in found[0]


def test_all_problems_in_one_message() -> None:
    values = vm_stack(
        **{
            "gpu-ci:compartmentId": None,
            "gpu-ci:vm": {"shape": "VM.GPU.A1O.1", "sshKeys": []},
        }
    )
    with pytest.raises(ConfigError) as caught:
        load(values)
    message = str(caught.value)
    assert message.splitlines()[0] == "stack 'test': invalid gpu-ci config (3 problems):"
    for key in ("gpu-ci:compartmentId", "gpu-ci:vm.shape", "gpu-ci:vm.sshKeys"):
        assert f"  - {key}: " in message
    assert "Traceback" not in message


def test_capacity_enum_typo() -> None:
    assert problems({"gpu-ci:capacity": "vmm"}) == [
        "gpu-ci:capacity: must be one of 'vm', 'arc', 'none' (did you mean 'vm'?) [given: 'vmm']"
    ]


def test_vm_block_without_vm_capacity() -> None:
    [problem] = problems({"gpu-ci:vm": {"count": 2}})
    assert problem.startswith("gpu-ci:vm: set, but gpu-ci:capacity is 'none'")


@pytest.mark.parametrize(
    ("network", "key", "fragment"),
    [
        (
            {"sshSourceCidrs": ["0.0.0.0/0"]},
            "sshSourceCidrs",
            "opens the port to the whole internet",
        ),
        ({"apiSourceCidrs": ["::/0"]}, "apiSourceCidrs", "opens the port to the whole internet"),
        ({"sshSourceCidrs": ["10.0.0.1/24"]}, "sshSourceCidrs[0]", "has host bits set"),
        ({"sshSourceCidrs": ["not-a-cidr"]}, "sshSourceCidrs[0]", "is not a CIDR block"),
        ({"subnetCidr": "192.168.1.0/24"}, "subnetCidr", "is not inside vcnCidr 10.0.0.0/16"),
        ({"existingSubnetId": "subnet-123"}, "existingSubnetId", "is not an OCI OCID"),
        *(
            ({"dnsLabel": label}, "dnsLabel", "String should match pattern")
            for label in ("gpu-ci", "gpu_ci", "1gpuci", "GPUCI", "", "a" * 16, "gpuci\n")
        ),
    ],
)
def test_network_problems(network: dict[str, object], key: str, fragment: str) -> None:
    [problem] = problems(vm_stack(**{"gpu-ci:network": network}))
    assert problem.startswith(f"gpu-ci:network.{key}: ")
    assert fragment in problem


@pytest.mark.parametrize("label", ["g", "gpuci", "ci2", "a" * 15])
def test_dns_labels_oci_accepts(label: str) -> None:
    """OCI's rule: a letter, then up to 14 lowercase letters and digits."""
    config = load(vm_stack(**{"gpu-ci:network": {"dnsLabel": label}}))
    assert config.network.dnsLabel == label


def test_world_ingress_with_explicit_override() -> None:
    cfg = load(
        vm_stack(**{"gpu-ci:network": {"sshSourceCidrs": ["0.0.0.0/0"], "allowWorldIngress": True}})
    )
    assert cfg.network.sshSourceCidrs == ["0.0.0.0/0"]


@pytest.mark.parametrize(
    ("vm", "key", "fragment"),
    [
        ({"count": 0}, "count", "greater than or equal to 1"),
        ({"bootVolumeSizeGbs": 20}, "bootVolumeSizeGbs", "greater than or equal to 50"),
        ({"availabilityDomains": []}, "availabilityDomains", "at least 1 item"),
        (
            {"availabilityDomains": [0, 0]},
            "availabilityDomains",
            "lists an availability domain twice",
        ),
        ({"availabilityDomains": ["AD-1"]}, "availabilityDomains[0]", "neither an index"),
        ({"availabilityDomains": [-1]}, "availabilityDomains[0]", "index -1 is negative"),
        ({"availabilityDomains": [0, -2]}, "availabilityDomains[1]", "index -2 is negative"),
        ({"image": {"id": COMPARTMENT, "operatingSystem": "x"}}, "image", "not both"),
        ({"image": {"id": "ami-123"}}, "image.id", "is not an OCI OCID"),
        ({"sshAuthorizedKeys": ["hello"]}, "sshAuthorizedKeys[0]", "not an OpenSSH public key"),
    ],
)
def test_vm_problems(vm: dict[str, object], key: str, fragment: str) -> None:
    [problem] = problems(vm_stack(**{"gpu-ci:vm": vm}))
    assert problem.startswith(f"gpu-ci:vm.{key}: ")
    assert fragment in problem


def test_fallback_ads_need_the_tenancy() -> None:
    [problem] = problems(vm_stack(**{"gpu-ci:vm": {"availabilityDomains": [0, 1]}}))
    assert problem.startswith("gpu-ci:tenancyId: required when gpu-ci:vm.availabilityDomains")


def test_a_pasted_private_key_is_refused_and_not_echoed() -> None:
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END"
    )
    [problem] = problems(vm_stack(**{"gpu-ci:vm": {"sshAuthorizedKeys": [SSH_KEY, key]}}))
    assert problem.startswith("gpu-ci:vm.sshAuthorizedKeys[1]: this is a PRIVATE key")
    assert "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" not in problem


def test_values_of_secret_keys_are_never_echoed() -> None:
    [problem] = problems(vm_stack(**{"gpu-ci:vm": {"shape": "s3cr3t-shape"}}), secret={"gpu-ci:vm"})
    assert problem.startswith("gpu-ci:vm: is stored as a secret, but it holds no credential")
    assert "s3cr3t-shape" not in problem


def test_secret_keys_that_are_no_credentials_are_refused() -> None:
    found = problems(vm_stack(), secret={"gpu-ci:owner", "gpu-ci:compartmentId"})
    assert [p.split(": ")[0] for p in found] == ["gpu-ci:compartmentId", "gpu-ci:owner"]
    assert "`pulumi config set gpu-ci:owner VALUE`" in found[1]


def test_json_values_and_legacy_keys_are_read_like_the_cli() -> None:
    raw = raw_from_flat(
        {"gpu-ci:config:capacity": "vm", "gpu-ci:vm": '{"count": 2}', "other:key": "x"}, set()
    )
    assert raw.values == {"capacity": "vm", "vm": {"count": 2}}
