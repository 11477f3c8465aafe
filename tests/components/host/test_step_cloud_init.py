"""Step cloud-init: wait for first boot; degraded is reported, a failure names the step."""

from __future__ import annotations

from components.host.params.bootstrap import CloudInitParams
from components.host.params.step import Step

from .sandbox import Sandbox


def test_waits_for_cloud_init(sandbox: Sandbox) -> None:
    sandbox.put("cloud-init-status", "0 done")
    run = sandbox.run(Step.CLOUD_INIT, sandbox.params(CloudInitParams))
    assert run.returncode == 0, run.stderr
    assert run.calls == ["cloud-init status --wait --long"]
    result = run.result()
    assert result.changed is False
    assert result.model_extra == {"status": "done"}


def test_recoverable_errors_are_reported_not_fatal(sandbox: Sandbox) -> None:
    sandbox.put("cloud-init-status", "2 degraded done")
    run = sandbox.run(Step.CLOUD_INIT, sandbox.params(CloudInitParams))
    assert run.returncode == 0, run.stderr
    assert run.result().model_extra == {"status": "degraded"}
    assert "gpu-ci step cloud-init: cloud-init finished with recoverable errors" in run.stderr


def test_a_failed_first_boot_fails_naming_the_step_and_the_log(sandbox: Sandbox) -> None:
    sandbox.put("cloud-init-status", "1 error")
    run = sandbox.run(Step.CLOUD_INIT, sandbox.params(CloudInitParams))
    assert run.returncode == 1
    assert "status: error" in run.stderr
    assert run.stderr.rstrip().endswith(
        "gpu-ci step cloud-init: cloud-init failed on first boot (status exit 1); see "
        "/var/log/cloud-init-output.log on the host"
    )


def test_an_image_without_cloud_init_has_nothing_to_wait_for(sandbox: Sandbox) -> None:
    (sandbox.bin / "cloud-init").unlink()
    run = sandbox.run(Step.CLOUD_INIT, sandbox.params(CloudInitParams))
    assert run.returncode == 0, run.stderr
    assert run.calls == []
    assert run.result().model_extra == {"status": "absent"}
