"""`gpu-ci:host` and `gpu-ci:runner`: targets, pins, secrets and cross-key rules."""

from __future__ import annotations

from typing import Any

import pytest

from components.host.config.host import LocalHost, OciVmHost, SshHost
from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.stacks.stack_helpers import flat, vm_stack

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\n-----END RSA PRIVATE KEY-----\n"
APP = {"appId": 123456, "installationId": 654321, "privateKey": PEM}


def load(values: dict[str, Any], secret: set[str] | None = None) -> StackConfig:
    return load_config(raw_from_flat(flat(values), secret or set()), "test")


def problems(values: dict[str, Any], secret: set[str] | None = None) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(values, secret)
    return [str(p) for p in caught.value.problems]


def none(**keys: Any) -> dict[str, Any]:
    return {"gpu-ci:capacity": "none", **{f"gpu-ci:{k}": v for k, v in keys.items()}}


def test_each_target_loads_as_its_own_model() -> None:
    assert isinstance(load(vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}})).host, OciVmHost)
    assert isinstance(load(none(host={"target": "local"})).host, LocalHost)
    ssh = load(none(host={"target": "ssh", "address": "10.1.2.3", "user": "ci"})).host
    assert isinstance(ssh, SshHost) and ssh.port == 22 and ssh.reboot is True


def test_versions_default_to_the_pins() -> None:
    host = load(none(host={"target": "local"})).host
    assert host is not None
    assert host.versions.toolkit == "1.17.8-1"
    assert host.versions.driverBranch == "570-server"
    assert host.versions.nvkind.commit == "9a3061c"


def test_a_misspelt_target_gets_the_choices_and_a_guess() -> None:
    assert problems(none(host={"target": "lcoal"})) == [
        "gpu-ci:host.target: must be one of 'oci-vm', 'ssh', 'local' (did you mean 'local'?) "
        "[given: 'lcoal']"
    ]


def test_a_missing_target_is_named() -> None:
    assert problems(none(host={"user": "ci"})) == [
        "gpu-ci:host.target: required key is missing; must be one of 'oci-vm', 'ssh', 'local'"
    ]


def test_keys_of_the_chosen_target_are_named_without_the_tag() -> None:
    found = problems(none(host={"target": "ssh", "adress": "10.1.2.3"}))
    assert found[0] == "gpu-ci:host.address: required key is missing"
    assert found[1].startswith("gpu-ci:host.adress: unknown key (did you mean 'address'?)")
    assert found[2] == "gpu-ci:host.user: required key is missing"


def test_a_public_key_as_private_key_is_refused_without_echoing_it() -> None:
    found = problems(
        none(host={"target": "ssh", "address": "h", "user": "ci", "privateKey": "ssh-ed25519 A"}),
        {"gpu-ci:host"},
    )
    assert found == [
        "gpu-ci:host.privateKey: not a PEM/OpenSSH private key (-----BEGIN ... PRIVATE "
        "KEY-----); set it with `pulumi config set --secret --path <key> < ~/.ssh/id_ed25519` "
        "[given: [secret]]"
    ]


def test_a_bad_host_key_says_where_to_read_the_right_one() -> None:
    found = problems(none(host={"target": "ssh", "address": "h", "user": "ci", "hostKey": "x"}))
    assert found[0].startswith("gpu-ci:host.hostKey: not an SSH host public key")
    assert "/etc/ssh/ssh_host_ed25519_key.pub" in found[0]


def test_nvkind_commit_needs_its_date() -> None:
    found = problems(none(host={"target": "local", "versions": {"nvkind": {"commit": "abcdef1"}}}))
    assert found[0].startswith("gpu-ci:host.versions.nvkind: commitDate is required with commit")


def test_oci_vm_target_needs_vm_capacity_and_vm_capacity_needs_it() -> None:
    assert problems(none(host={"target": "oci-vm"}))[0].startswith(
        "gpu-ci:host: target 'oci-vm' bootstraps the VMs this stack creates, but "
        "gpu-ci:capacity is 'none'"
    )
    assert problems(vm_stack(**{"gpu-ci:host": {"target": "local"}}))[0].startswith(
        "gpu-ci:host: target 'local' with gpu-ci:capacity 'vm'"
    )


def test_runner_defaults_and_scope() -> None:
    cfg = load(
        vm_stack(
            **{
                "gpu-ci:host": {"target": "oci-vm"},
                "gpu-ci:runner": {"url": "https://github.com/kubeflow", "githubApp": APP},
            }
        ),
        {"gpu-ci:runner"},
    )
    assert cfg.runner is not None
    assert cfg.runner.scope == "organization"
    assert cfg.runner.ephemeral is True
    assert cfg.runner.group == "Default"
    assert cfg.runner.labels is None  # derived from the shape by the host layer


@pytest.mark.parametrize(
    ("url", "scope"),
    [
        ("https://github.com/kubeflow/trainer", "repository"),
        ("https://github.com/kubeflow/", "organization"),
        ("https://github.com/enterprises/cncf", "enterprise"),
    ],
)
def test_runner_scope_follows_the_url(url: str, scope: str) -> None:
    cfg = load(
        vm_stack(
            **{
                "gpu-ci:host": {"target": "oci-vm"},
                "gpu-ci:runner": {"url": url, "githubApp": APP},
            }
        ),
        {"gpu-ci:runner"},
    )
    assert cfg.runner is not None and cfg.runner.scope == scope


def test_runner_rules_name_their_key() -> None:
    runner = {"url": "https://github.com/kubeflow/trainer", "group": "GPUs", "githubApp": APP}
    found = problems(
        vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, "gpu-ci:runner": runner}),
        {"gpu-ci:runner"},
    )
    assert found == [
        "gpu-ci:runner.group: repository runners can only join the 'Default' group; register "
        "at the organization (https://github.com/ORG) to use runner groups [given: 'GPUs']"
    ]
    no_host = problems(
        vm_stack(**{"gpu-ci:runner": {**runner, "group": "Default"}}), {"gpu-ci:runner"}
    )
    assert no_host[0].startswith("gpu-ci:runner: a runner is installed on a bootstrapped host")
    local = problems(
        none(host={"target": "local"}, runner={**runner, "group": "Default"}), {"gpu-ci:runner"}
    )
    assert local[0].startswith("gpu-ci:runner: target 'local' is the machine running")
    ssh = problems(
        none(
            host={"target": "ssh", "address": "h", "user": "ci"},
            runner={**runner, "group": "Default"},
        ),
        {"gpu-ci:runner"},
    )
    assert ssh[0].startswith("gpu-ci:runner: labels are required for an 'ssh' host")


def test_the_app_key_must_be_a_secret_pem() -> None:
    runner = {"url": "https://github.com/kubeflow", "githubApp": {**APP, "privateKey": "abc"}}
    found = problems(vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, "gpu-ci:runner": runner}))
    assert any(
        p.startswith("gpu-ci:runner.githubApp.privateKey: not a PEM private key") for p in found
    )
    assert not any("abc" in p for p in found)
