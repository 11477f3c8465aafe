"""lib.sh retries: apt/dpkg lock contention and network errors, bounded, with backoff."""

from __future__ import annotations

from components.host.params.bootstrap import InotifyParams, NvidiaDriverParams, ToolsParams
from components.host.params.step import Step

from .sandbox import Sandbox


def test_apt_lock_is_retried_with_exponential_backoff(sandbox: Sandbox) -> None:
    sandbox.put("apt-lock", "3")
    params = sandbox.params(NvidiaDriverParams, retry_base_seconds=2, retry_attempts=5)
    run = sandbox.run(Step.NVIDIA_DRIVER, params)
    assert run.returncode == 0, run.stderr
    assert [c for c in run.calls if c.startswith("sleep")] == ["sleep 2", "sleep 4", "sleep 8"]
    assert run.commands().count("apt-get") == 5  # 3 locked updates, 1 update, 1 install
    assert "Could not get lock" in run.stderr
    assert run.result().changed is True


def test_apt_lock_held_too_long_fails_naming_the_step(sandbox: Sandbox) -> None:
    sandbox.put("apt-lock", "100")
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams, retry_attempts=3))
    assert run.returncode != 0
    assert run.commands().count("apt-get") == 3
    assert (
        "gpu-ci step nvidia-driver: apt-get update still blocked (apt/dpkg lock or network) "
        "after 3 attempts" in run.stderr
    )
    assert "systemd-run" not in run.commands()


def test_apt_network_error_is_retried(sandbox: Sandbox) -> None:
    sandbox.put("apt-network", "1")
    run = sandbox.run(Step.NVIDIA_DRIVER, sandbox.params(NvidiaDriverParams))
    assert run.returncode == 0, run.stderr
    assert run.commands().count("apt-get") == 3


def test_download_network_error_is_retried(sandbox: Sandbox) -> None:
    params = ToolsParams.from_pins(
        root=str(sandbox.root),
        retry_base_seconds=0,
        nvkind_binary=(
            "https://example.com/nvkind",
            sandbox.serve("https://example.com/nvkind", b"nv"),
        ),
        kind_sha256=sandbox.serve(ToolsParams.from_pins().kind_url, b"kind"),
        kubectl_sha256=sandbox.serve(ToolsParams.from_pins().kubectl_url, b"kubectl"),
    )
    sandbox.put("curl-network", "2")
    # helm is missing on purpose: 404 is not retried and fails the step.
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode != 0
    assert run.commands().count("curl") == 5  # kind x3 (2 network errors), kubectl, helm 404
    assert "download of https://get.helm.sh/" in run.stderr
    assert "(curl exit 22)" in run.stderr


def test_download_network_error_exhausts_attempts(sandbox: Sandbox) -> None:
    params = ToolsParams.from_pins(root=str(sandbox.root), retry_base_seconds=0, retry_attempts=2)
    sandbox.put("curl-network", "99")
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode != 0
    assert run.commands().count("curl") == 2
    assert "gpu-ci step tools: download of" in run.stderr
    assert "after 2 attempts (curl exit 6)" in run.stderr


def test_unexpected_failure_names_the_step(sandbox: Sandbox) -> None:
    """A command failing outside the helpers still reports `gpu-ci step <name>`."""
    run = sandbox.run(Step.INOTIFY, sandbox.params(InotifyParams))  # no sysctl state: cat fails
    assert run.returncode != 0
    assert "gpu-ci step inotify: command failed" in run.stderr
