"""The host layer's graph: steps as command resources, ordered, chained and secret-safe."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pulumi
import pytest

from components.host.chain import CHAIN_PREFIX
from stacks.offline.engine.fakes import vm_addresses
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from tests.stacks.stack_helpers import children_of, run_stack, vm_stack

REMOTE = "command:remote:Command"
LOCAL = "command:local:Command"
HOST = "gpu-ci:host:GpuHost"
INSTANCE = "oci:Core/instance:Instance"

VM_STEPS = [
    "cloud-init",
    "nvidia-driver",
    "reboot-wait",
    "docker",
    "container-toolkit",
    "toolkit-config",
    "inotify",
    "tools",
    "verify",
]
LOCAL_STEPS = [s for s in VM_STEPS if s not in ("cloud-init", "reboot-wait")]
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostKeyOfTheGpuServerForTests0000000000"


def vm_host_stack(**host: Any) -> dict[str, Any]:
    return vm_stack(**{"gpu-ci:host": {"target": "oci-vm", **host}})


def local_stack(**host: Any) -> dict[str, Any]:
    return {"gpu-ci:capacity": "none", "gpu-ci:host": {"target": "local", **host}}


def ssh_stack(**host: Any) -> dict[str, Any]:
    base = {"target": "ssh", "address": "gpu1.example.org", "user": "ci", "hostKey": HOST_KEY}
    return {"gpu-ci:capacity": "none", "gpu-ci:host": {**base, **host}}


ACCESS = "authorized-keys"
"""The side step that keeps a VM's SSH keys current: after cloud-init, outside the chain."""


def steps_of(run: ProgramRun, host: str) -> list[Registration]:
    """The host's chained step resources in dependency order (each after the one it
    needs); the side step `authorized-keys` is left out."""
    kids = {r.urn: r for r in children_of(run, run.one(HOST, host)) if r.name != f"{host}-{ACCESS}"}
    ordered: list[Registration] = []
    while kids:
        ready = [r for r in kids.values() if not set(r.dependencies) & set(kids)]
        assert len(ready) == 1, f"steps must form one chain: {[r.name for r in ready]}"
        ordered.append(kids.pop(ready[0].urn))
    return ordered


def step_names(run: ProgramRun, host: str) -> list[str]:
    return [r.name.removeprefix(f"{host}-") for r in steps_of(run, host)]


def digests(run: ProgramRun, host: str) -> dict[str, str]:
    """Each step's chained digest: the last line of its stdin."""
    out = {}
    for r in steps_of(run, host):
        last = r.inputs["stdin"].rstrip("\n").rsplit("\n", 1)[-1]
        assert last.startswith(CHAIN_PREFIX), f"{r.name}: its stdin ends without its digest"
        out[r.name.removeprefix(f"{host}-")] = last.removeprefix(CHAIN_PREFIX)
    return out


@pytest.fixture(scope="module")
def vm_run() -> ProgramRun:
    return run_stack(vm_host_stack())


def test_vm_host_runs_every_step_after_its_vm_in_order(vm_run: ProgramRun) -> None:
    assert step_names(vm_run, "host-0") == VM_STEPS
    steps = steps_of(vm_run, "host-0")
    instance = vm_run.one(INSTANCE).urn
    assert instance in steps[0].dependencies
    for before, after in itertools.pairwise(steps):
        assert before.urn in after.dependencies, f"{after.name} must wait for {before.name}"
    assert {r.type for r in steps} == {REMOTE, LOCAL}
    assert [r.name for r in steps if r.type == LOCAL] == ["host-0-reboot-wait"]


def test_each_vm_gets_its_own_host_reached_at_its_public_ip() -> None:
    run = run_stack(vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, "gpu-ci:vm": {"count": 2}}))
    assert sorted(r.name for r in run.by_type(HOST)) == ["host-0", "host-1"]
    vm1 = run.one(INSTANCE, "gpu-vm-1").urn
    first = steps_of(run, "host-1")[0]
    assert first.property_dependencies["connection"] == [vm1]
    assert vm1 in first.property_dependencies["triggers"]


def test_remote_steps_feed_the_script_on_stdin_and_wait_for_ssh(vm_run: ProgramRun) -> None:
    docker = vm_run.one(REMOTE, "host-0-docker")
    assert docker.inputs["create"].startswith('f="$(mktemp)" && cat >"$f"')
    script = docker.inputs["stdin"]
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "readonly GPU_CI_STEP=docker" in script
    assert "readonly DOCKER_USER=ubuntu" in script
    # The plan stands in for the VM's address (as a preview of a deployed stack knows
    # it), so the connection is a known secret whose changes a diff can see.
    planned = reveal(docker.inputs["connection"])
    assert planned["host"] == vm_addresses("gpu-vm-0")["publicIp"]
    assert isinstance(docker.inputs["connection"], Secret)
    applied = run_stack(vm_host_stack(), preview=False)
    connection = reveal(applied.one(REMOTE, "host-0-docker").inputs["connection"])
    assert connection["host"] == reveal(applied.exports["capacity"])["publicIps"][0]
    assert connection["user"] == "ubuntu"
    assert connection["dialErrorLimit"] == 60
    assert "privateKey" not in connection  # none configured: the deployer's ssh-agent


def test_reboot_wait_probes_the_vm_with_the_driver_result(vm_run: ProgramRun) -> None:
    wait = vm_run.one(LOCAL, "host-0-reboot-wait")
    driver = vm_run.one(REMOTE, "host-0-nvidia-driver")
    assert set(wait.inputs["environment"]) == {
        "GPU_CI_HOST",
        "GPU_CI_PORT",
        "GPU_CI_DRIVER_RESULT",
        "GPU_CI_DOWN_TIMEOUT",
        "GPU_CI_UP_TIMEOUT",
    }
    assert driver.urn in wait.property_dependencies["environment"]
    assert wait.inputs["create"].startswith('f="$(mktemp)"')
    assert "python3" in wait.inputs["create"]
    assert "readonly REBOOT=true" in driver.inputs["stdin"]


def test_verify_expects_the_shapes_gpu_count() -> None:
    run = run_stack(
        vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, "gpu-ci:vm": {"shape": "VM.GPU.A10.2"}})
    )
    assert "readonly EXPECTED_GPUS=2" in run.one(REMOTE, "host-0-verify").inputs["stdin"]


def test_local_target_runs_the_same_steps_on_the_deployer_without_a_vm() -> None:
    run = run_stack(local_stack())
    assert step_names(run, "host") == LOCAL_STEPS
    assert not [r for r in run.registrations if r.type.startswith("oci:")]
    assert {r.type for r in steps_of(run, "host")} == {LOCAL}
    driver = run.one(LOCAL, "host-nvidia-driver").inputs["stdin"]
    assert "readonly REBOOT=false" in driver  # never reboot the machine running pulumi


def test_toolkit_pin_changes_only_that_step_and_the_ones_after() -> None:
    before_run = run_stack(vm_host_stack())
    after_run = run_stack(vm_host_stack(versions={"toolkit": "1.17.0-1"}))
    before, after = digests(before_run, "host-0"), digests(after_run, "host-0")
    changed = [step for step in VM_STEPS if before[step] != after[step]]
    assert changed == VM_STEPS[VM_STEPS.index("container-toolkit") :]
    # ... through their stdin (an in-place update), never their triggers (a replacement)
    old = {r.name: r.inputs["triggers"] for r in steps_of(before_run, "host-0")}
    new = {r.name: r.inputs["triggers"] for r in steps_of(after_run, "host-0")}
    assert old == new


def test_triggers_are_the_machine_alone() -> None:
    run = run_stack(vm_host_stack(), preview=False)
    instance = run.one(INSTANCE, "gpu-vm-0")
    for step in steps_of(run, "host-0"):
        assert step.property_dependencies["triggers"] == [instance.urn], step.name
        assert len(step.inputs["triggers"]) == 1, step.name
    local = run_stack(local_stack())
    assert {tuple(r.inputs["triggers"]) for r in steps_of(local, "host")} == {("local",)}


def test_cdi_switch_reruns_configuration_but_not_the_toolkit_install() -> None:
    before = digests(run_stack(local_stack()), "host")
    after = digests(run_stack(local_stack(cdi=True)), "host")
    changed = [step for step in LOCAL_STEPS if before[step] != after[step]]
    assert changed == ["toolkit-config", "inotify", "tools", "verify"]


def test_step_digests_are_stable_across_runs() -> None:
    assert digests(run_stack(local_stack()), "host") == digests(run_stack(local_stack()), "host")


def test_vm_keys_reach_the_host_through_a_side_step(vm_run: ProgramRun) -> None:
    keys = vm_run.one(REMOTE, f"host-0-{ACCESS}")
    cloud_init = vm_run.one(REMOTE, "host-0-cloud-init")
    driver = vm_run.one(REMOTE, "host-0-nvidia-driver")
    assert cloud_init.urn in keys.dependencies
    assert keys.urn not in driver.dependencies  # a new key re-runs nothing else
    assert "readonly GPU_CI_STEP=authorized-keys" in keys.inputs["stdin"]
    assert "readonly USER=ubuntu" in keys.inputs["stdin"]
    instance = vm_run.one(INSTANCE, "gpu-vm-0")
    assert {"metadata", "availabilityDomain"} <= set(instance.options["ignoreChanges"])


def test_an_ssh_or_local_host_has_no_key_step() -> None:
    for stack, host in ((ssh_stack(), "host"), (local_stack(), "host")):
        run = run_stack(stack)
        assert not [r for r in run.registrations if r.name.endswith(ACCESS)], host


def test_toolkit_118_with_old_nvkind_fails_the_plan_with_the_reason() -> None:
    config = local_stack(
        versions={
            "toolkit": "1.18.1-1",
            "nvkind": {"commit": "5bb2ef1", "commitDate": "2026-02-10"},
        }
    )
    with pytest.raises(pulumi.RunError) as failure:
        run_stack(config)
    message = str(failure.value)
    assert "gpu-ci:host.versions: known-bad combination: [nvkind-61-jit-cdi-umount]" in message
    assert "umount: /proc/driver/nvidia: not mounted" in message
    assert "Fix: pin nvkind at commit 9a3061c (2026-04-20) or later" in message


def test_toolkit_119_with_recent_nvkind_and_cdi_plans_cleanly() -> None:
    run = run_stack(local_stack(cdi=True, versions={"toolkit": "1.19.1-1"}))
    toolkit = run.one(LOCAL, "host-container-toolkit").inputs["stdin"]
    assert "readonly TOOLKIT_VERSION=1.19.1-1" in toolkit
    assert "readonly CDI_ENABLED=true" in run.one(LOCAL, "host-toolkit-config").inputs["stdin"]
    assert [m for level, m in run.logs if level == "warning"] == []


def test_an_unknown_toolkit_version_warns_but_plans() -> None:
    run = run_stack(local_stack(versions={"toolkit": "1.21.0-1"}, cdi=True))
    warnings = [m for level, m in run.logs if level == "warning"]
    assert any("[unknown-toolkit-version] toolkit 1.21.0" in w for w in warnings)


def test_tool_override_needs_and_uses_its_checksum() -> None:
    digest = "ab" * 32
    run = run_stack(local_stack(versions={"kind": {"version": "0.32.0", "sha256": digest}}))
    tools = run.one(LOCAL, "host-tools").inputs["stdin"]
    assert "kind/releases/download/v0.32.0/kind-linux-amd64" in tools
    assert f"readonly KIND_SHA256={digest}" in tools
    with pytest.raises(pulumi.RunError, match=r"gpu-ci:host.versions.kind.sha256: required key"):
        run_stack(local_stack(versions={"kind": {"version": "0.32.0"}}))


def test_ssh_host_pins_its_host_key_and_keeps_the_private_key_secret() -> None:
    run = run_stack(
        ssh_stack(
            privateKey=PRIVATE_KEY,
            port=2222,
            proxy={"address": "bastion.example.org", "user": "jump", "hostKey": HOST_KEY},
            reboot=False,
        ),
        secret_keys=["gpu-ci:host"],
    )
    assert step_names(run, "host") == LOCAL_STEPS  # no cloud-init, no reboot to wait for
    connection = reveal(run.one(REMOTE, "host-docker").inputs["connection"])
    assert connection["host"] == "gpu1.example.org"
    assert connection["port"] == 2222
    assert connection["hostKey"] == HOST_KEY
    assert connection["privateKey"] == PRIVATE_KEY
    assert connection["proxy"]["host"] == "bastion.example.org"
    assert connection["proxy"]["hostKey"] == HOST_KEY
    text = dumps(snapshot_of(run)) + json.dumps(run.logs) + repr(run.exports)
    assert "PRIVATE KEY" not in text
    assert "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU" not in text


def test_ssh_host_without_a_host_key_warns() -> None:
    run = run_stack(ssh_stack(hostKey=None))
    assert any("accepts any host key" in m for level, m in run.logs if level == "warning")


def test_reboot_through_a_proxy_is_refused_with_the_way_out() -> None:
    with pytest.raises(pulumi.RunError) as failure:
        run_stack(ssh_stack(proxy={"address": "bastion.example.org", "user": "jump"}))
    assert "gpu-ci:host.reboot: a reboot cannot be awaited through a proxy" in str(failure.value)


def test_host_outputs_carry_driver_and_gpus_after_an_update() -> None:
    run = run_stack(local_stack(), preview=False)
    host = run.exports["host"]
    assert host["contractVersion"] == 1
    assert host["target"] == "local"
    assert host["cdi"] is False
    assert host["versions"] == {
        "driverBranch": "570-server",
        "toolkit": "1.17.8-1",
        "nvkind": "9a3061c",
    }
    assert host["hosts"] == [{"name": "host", "driverVersion": None, "gpus": []}]
