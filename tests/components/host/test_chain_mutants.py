"""Which steps each target runs, where, fed how and with what versions; the exact digest
(mutation-testing survivors of components/host/chain.py, without a Pulumi run)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from components.host.chain import (
    CHAIN_PREFIX,
    REBOOT_WAIT,
    RUN_STDIN_PYTHON,
    RUN_STDIN_SCRIPT,
    PlannedStep,
    authorized_keys_step,
    bootstrap_steps,
    chain_digest,
    chained,
    host_pins,
    reboot_wait_source,
    tools_params,
)
from components.host.config.host import HostConfig
from components.pins import PINS

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f ci"
SHA = "ef" * 32
_READONLY = re.compile(r"^readonly ([A-Z_0-9]+)=(.*)$", re.MULTILINE)
AFTER_DRIVER = ["docker", "container-toolkit", "toolkit-config", "inotify", "tools", "verify"]
TOOLS = {
    "kind": PINS.kind.version,
    "kubectl": PINS.kubectl.version,
    "helm": PINS.helm.version,
    "nvkind": PINS.nvkind.commit,
    "go": PINS.go.version,
}


def host(**keys: Any) -> HostConfig:
    return TypeAdapter(HostConfig).validate_python(keys)


def ssh(**keys: Any) -> HostConfig:
    return host(target="ssh", address="gpu1.example.org", user="ci", **keys)


def values(steps: list[PlannedStep], name: str) -> dict[str, str]:
    (step,) = [s for s in steps if s.name == name]
    return dict(_READONLY.findall(step.script))


def test_an_oci_vm_runs_cloud_init_then_reboots_after_the_driver() -> None:
    steps = bootstrap_steps(host(target="oci-vm"))
    assert [s.name for s in steps] == ["cloud-init", "nvidia-driver", REBOOT_WAIT, *AFTER_DRIVER]
    assert [s.where for s in steps if s.name != REBOOT_WAIT] == ["host"] * 8
    assert values(steps, "nvidia-driver")["REBOOT"] == "true"
    assert values(steps, "docker")["DOCKER_USER"] == "ubuntu"


def test_an_ssh_host_reboots_unless_told_not_to() -> None:
    steps = bootstrap_steps(ssh())
    assert [s.name for s in steps] == ["nvidia-driver", REBOOT_WAIT, *AFTER_DRIVER]
    assert values(steps, "nvidia-driver")["REBOOT"] == "true"
    no_reboot = bootstrap_steps(ssh(reboot=False))
    assert [s.name for s in no_reboot] == ["nvidia-driver", *AFTER_DRIVER]
    assert values(no_reboot, "nvidia-driver")["REBOOT"] == "false"


def test_the_reboot_wait_runs_python_on_the_deployer() -> None:
    (wait,) = [s for s in bootstrap_steps(ssh()) if s.name == REBOOT_WAIT]
    assert (wait.where, wait.command, wait.versions) == ("deployer", RUN_STDIN_PYTHON, {})
    assert wait.script == reboot_wait_source()
    source = Path(__file__).parents[3] / "components" / "host" / "scripts" / "reboot-wait.py"
    assert wait.script == source.read_text()


def test_a_local_host_runs_every_step_on_the_deployer_without_reboot() -> None:
    steps = bootstrap_steps(host(target="local"))
    assert [s.name for s in steps] == ["nvidia-driver", *AFTER_DRIVER]
    assert {s.where for s in steps} == {"deployer"}
    assert {s.command for s in steps} == {RUN_STDIN_SCRIPT}
    assert values(steps, "nvidia-driver")["REBOOT"] == "false"
    assert values(steps, "docker")["DOCKER_USER"] == "''"


def test_docker_user_is_the_configured_one_else_the_ssh_user() -> None:
    assert values(bootstrap_steps(ssh()), "docker")["DOCKER_USER"] == "ci"
    assert values(bootstrap_steps(ssh(dockerUser="dk")), "docker")["DOCKER_USER"] == "dk"
    local = bootstrap_steps(host(target="local", dockerUser="dk"))
    assert values(local, "docker")["DOCKER_USER"] == "dk"


def test_each_step_records_the_versions_it_installs() -> None:
    steps = {s.name: s.versions for s in bootstrap_steps(ssh(cdi=True))}
    assert steps == {
        "nvidia-driver": {"driver": PINS.driver_package},
        REBOOT_WAIT: {},
        "docker": {},
        "container-toolkit": {"nvidia-container-toolkit": PINS.toolkit_version},
        "toolkit-config": {"cdi": "enabled"},
        "inotify": {},
        "tools": TOOLS,
        "verify": {},
    }
    plain = {s.name: s.versions for s in bootstrap_steps(ssh())}
    assert plain["toolkit-config"] == {"cdi": "disabled"}


def test_a_downloaded_nvkind_records_no_go_version() -> None:
    versions = {"nvkind": {"binaryUrl": "https://example.com/nvkind", "binarySha256": SHA}}
    (tools,) = [s for s in bootstrap_steps(ssh(versions=versions)) if s.name == "tools"]
    assert tools.versions == {k: v for k, v in TOOLS.items() if k != "go"}
    params = tools_params(ssh(versions=versions))
    assert params.nvkind_source == "binary"
    assert tools_params(ssh()).nvkind_source == "go"


def test_the_cdi_and_gpu_count_reach_their_scripts() -> None:
    steps = bootstrap_steps(ssh(cdi=True), expected_gpus=4)
    assert values(steps, "toolkit-config")["CDI_ENABLED"] == "true"
    assert values(steps, "verify")["EXPECTED_GPUS"] == "4"
    assert values(bootstrap_steps(ssh()), "verify")["EXPECTED_GPUS"] == "0"


def test_the_steps_are_chained_in_order() -> None:
    steps = bootstrap_steps(ssh())
    previous = ""
    for step in steps:
        assert step.digest == chain_digest(previous, step.name, step.script_sha256, step.versions)
        previous = step.digest


def test_the_digest_is_the_sha256_of_the_sorted_json() -> None:
    text = json.dumps(
        {"after": "p", "step": "docker", "script": "s", "versions": {"b": "2", "a": "1"}},
        sort_keys=True,
    )
    assert chain_digest("p", "docker", "s", {"b": "2", "a": "1"}) == (
        hashlib.sha256(text.encode()).hexdigest()
    )


def test_a_chained_step_keeps_every_field() -> None:
    step = PlannedStep("tools", "deployer", "echo\n", "bash -s", {"kind": "1"})
    (done,) = chained([step], after="before")
    assert (done.name, done.where, done.script, done.command, done.versions) == (
        "tools",
        "deployer",
        "echo\n",
        "bash -s",
        {"kind": "1"},
    )
    assert done.digest == chain_digest("before", "tools", step.script_sha256, {"kind": "1"})
    assert step.script_sha256 == hashlib.sha256(b"echo\n").hexdigest()


def test_the_digest_line_follows_the_script_once() -> None:
    step = PlannedStep("docker", "host", "echo\n\n", "bash", digest="d1")
    assert step.stdin == f"echo\n{CHAIN_PREFIX}d1\n"
    assert CHAIN_PREFIX == "# gpu-ci chain "


def test_authorized_keys_are_a_step_of_their_own() -> None:
    assert authorized_keys_step("ci", []) is None
    step = authorized_keys_step("ci", [KEY])
    assert step is not None
    assert (step.name, step.where, step.command, step.versions, step.digest) == (
        "authorized-keys",
        "host",
        RUN_STDIN_SCRIPT,
        {},
        "",
    )
    assert KEY in step.script
    assert dict(_READONLY.findall(step.script))["USER"] == "ci"


def test_host_pins_replace_the_nvkind_commit_and_each_tool() -> None:
    commit = {"commit": "0123456789abcdef0123456789abcdef01234567", "commitDate": "2025-01-02"}
    versions = ssh(
        versions={
            "nvkind": commit,
            "kind": {"version": "0.30.0", "sha256": SHA},
            "helm": {"version": "4.0.0", "sha256": SHA},
        }
    ).versions
    pins = host_pins(versions, "arm64")
    assert pins.nvkind.commit == commit["commit"]
    assert str(pins.nvkind.commit_date) == "2025-01-02"
    assert (pins.kind.version, pins.kind.sha256, pins.kind.source) == (
        "0.30.0",
        {"arm64": SHA},
        "stack config",
    )
    assert (pins.helm.version, pins.helm.sha256) == ("4.0.0", {"arm64": SHA})
    assert pins.kubectl == PINS.kubectl
    assert host_pins(ssh().versions).kind == PINS.kind


def test_an_arm64_host_downloads_its_own_binaries_and_override_checksums() -> None:
    versions = {"kubectl": {"version": "1.33.9", "sha256": SHA}}
    steps = bootstrap_steps(ssh(arch="arm64", versions=versions))
    tools = values(steps, "tools")
    assert tools["KUBECTL_URL"] == "https://dl.k8s.io/release/v1.33.9/bin/linux/arm64/kubectl"
    assert tools["KUBECTL_SHA256"] == SHA
    assert tools["KIND_URL"].endswith("/kind-linux-arm64")


def test_host_pins_default_to_amd64_and_carry_the_toolkit() -> None:
    versions = ssh(
        versions={"toolkit": "1.19.1-1", "kubectl": {"version": "1.33.9", "sha256": SHA}}
    ).versions
    pins = host_pins(versions)
    assert pins.kubectl.sha256 == {"amd64": SHA}
    assert pins.toolkit_version == "1.19.1-1" != PINS.toolkit_version


def test_cloud_init_records_no_versions() -> None:
    (cloud_init,) = [s for s in bootstrap_steps(host(target="oci-vm")) if s.name == "cloud-init"]
    assert cloud_init.versions == {}
