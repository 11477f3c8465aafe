"""Step toolkit-config: volume mounts + nvidia default runtime, restart only on change."""

from __future__ import annotations

import json

from components.host.params.bootstrap import ToolkitConfigParams
from components.host.params.step import Step

from .sandbox import Sandbox

SET_MOUNTS = "--in-place --set accept-nvidia-visible-devices-as-volume-mounts=true"


def test_happy_path_configures_and_restarts_docker(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.TOOLKIT_CONFIG, sandbox.params(ToolkitConfigParams))
    assert run.returncode == 0, run.stderr
    config = sandbox.root / "etc/nvidia-container-runtime/config.toml"
    daemon = sandbox.root / "etc/docker/daemon.json"
    assert run.calls == [
        f"nvidia-ctk config --config={config} {SET_MOUNTS}",
        f"nvidia-ctk runtime configure --runtime=docker --set-as-default --config={daemon}",
        "systemctl restart docker",
    ]
    assert json.loads(daemon.read_text())["default-runtime"] == "nvidia"
    assert run.result().changed is True


def test_second_run_does_not_restart_docker(sandbox: Sandbox) -> None:
    params = sandbox.params(ToolkitConfigParams)
    sandbox.run(Step.TOOLKIT_CONFIG, params)
    run = sandbox.run(Step.TOOLKIT_CONFIG, params)
    assert run.returncode == 0, run.stderr
    assert "systemctl" not in run.commands()
    assert run.result().changed is False


def test_cdi_flag_follows_the_parameter(sandbox: Sandbox) -> None:
    sandbox.run(Step.TOOLKIT_CONFIG, sandbox.params(ToolkitConfigParams, cdi_enabled=False))
    run = sandbox.run(Step.TOOLKIT_CONFIG, sandbox.params(ToolkitConfigParams, cdi_enabled=True))
    assert run.returncode == 0, run.stderr
    assert run.calls[1].endswith(" --cdi.enabled")
    assert run.calls[-1] == "systemctl restart docker"  # the daemon.json changed
    assert run.result().model_extra == {"cdiEnabled": True}


def test_docker_restart_failure_fails_naming_the_step(sandbox: Sandbox) -> None:
    sandbox.put("restart-fail-docker")
    run = sandbox.run(Step.TOOLKIT_CONFIG, sandbox.params(ToolkitConfigParams))
    assert run.returncode != 0
    assert "gpu-ci step toolkit-config: docker restart failed" in run.stderr
    assert '"step"' not in run.stdout
