"""Step nvidia-driver: skip on GPU images, install the branch, hand the reboot to the caller."""

from __future__ import annotations

from components.host.params.bootstrap import REBOOT_REQUIRED_EXIT, NvidiaDriverParams
from components.host.params.step import Step

from .sandbox import Sandbox

APT = "apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
QUERY = "nvidia-smi --query-gpu=driver_version --format=csv,noheader"


def test_driver_present_is_a_no_op(sandbox: Sandbox) -> None:
    sandbox.gpus(("NVIDIA A10", "GPU-a"), driver="570.172.08")
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams))
    assert run.returncode == 0, run.stderr
    assert run.calls == [QUERY]
    result = run.result()
    assert result.changed is False
    assert result.rebootRequired is False
    assert result.driverVersion == "570.172.08"


def test_install_then_scheduled_reboot(sandbox: Sandbox) -> None:
    params = sandbox.params(NvidiaDriverParams, driver_package="nvidia-driver-570-server")
    run = sandbox.run(Step.NVIDIA_DRIVER, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        QUERY,
        "dpkg-query -W -f=${Status}\\t${Version} nvidia-driver-570-server",
        f"{APT} update",
        f"{APT} install --no-install-recommends nvidia-driver-570-server",
        "systemd-run --on-active=5 --timer-property=AccuracySec=1s systemctl reboot",
    ]
    assert "reboot" not in run.commands()
    result = run.result()
    assert (result.changed, result.rebootRequired, result.rebootScheduled) == (True, True, True)
    assert sandbox.version("nvidia-driver-570-server") is not None


def test_rerun_before_reboot_does_not_reinstall(sandbox: Sandbox) -> None:
    sandbox.installed("nvidia-driver-570-server", "570.172.08-0ubuntu1")
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams))
    assert run.returncode == 0, run.stderr
    assert "apt-get" not in run.commands()
    assert run.commands()[-1] == "systemd-run"
    assert run.result().rebootRequired is True


def test_after_reboot_the_driver_is_seen(sandbox: Sandbox) -> None:
    sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams))
    sandbox.gpus(("NVIDIA A10", "GPU-a"))  # what the reboot brings
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams))
    assert run.returncode == 0
    assert run.calls == [QUERY]
    assert run.result().rebootRequired is False


def test_reboot_disabled_exits_with_reboot_required_code(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams, reboot=False))
    assert run.returncode == REBOOT_REQUIRED_EXIT == 75
    assert "gpu-ci step nvidia-driver: reboot required" in run.stderr
    assert "systemd-run" not in run.commands()
    result = run.result()
    assert (result.rebootRequired, result.rebootScheduled) == (True, False)


def test_unknown_package_fails_naming_the_step(sandbox: Sandbox) -> None:
    sandbox.put("apt-missing-nvidia-driver-999-server")
    params = sandbox.params(NvidiaDriverParams, driver_package="nvidia-driver-999-server")
    run = sandbox.run(Step.NVIDIA_DRIVER, params)
    assert run.returncode != 0
    assert "gpu-ci step nvidia-driver: apt-get install failed" in run.stderr
    assert "systemd-run" not in run.commands()
