"""Step container-toolkit: one exact version across four packages, held."""

from __future__ import annotations

from components.host.params.bootstrap import ContainerToolkitParams
from components.host.params.step import Step

from .sandbox import Sandbox

APT = "apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
PACKAGES = (
    "nvidia-container-toolkit",
    "nvidia-container-toolkit-base",
    "libnvidia-container-tools",
    "libnvidia-container1",
)


def ready(sandbox: Sandbox, version: str = "1.17.8-1") -> ContainerToolkitParams:
    sandbox.serve("https://nvidia.github.io/libnvidia-container/gpgkey", b"NV KEY")
    return sandbox.params(ContainerToolkitParams, toolkit_version=version)


def test_fresh_host_installs_pin_and_holds(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.CONTAINER_TOOLKIT, ready(sandbox))
    assert run.returncode == 0, run.stderr
    significant = [c for c in run.calls if c.split(" ")[0] in {"apt-get", "apt-mark", "gpg"}]
    assert significant[0].startswith("gpg --batch --yes --dearmor -o ")
    assert significant[1:] == [
        "apt-mark showhold",
        f"{APT} update",
        f"{APT} install --no-install-recommends --allow-downgrades "
        + " ".join(f"{p}=1.17.8-1" for p in PACKAGES),
        "apt-mark hold " + " ".join(PACKAGES),
    ]
    assert all(sandbox.version(p) == "1.17.8-1" for p in PACKAGES)
    assert sandbox.held() == set(PACKAGES)
    keyring = sandbox.root / "usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
    assert keyring.read_bytes() == b"dearmored:NV KEY"
    assert (sandbox.root / "etc/apt/sources.list.d/nvidia-container-toolkit.list").read_text() == (
        "deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] "
        "https://nvidia.github.io/libnvidia-container/stable/deb/amd64 /\n"
    )
    assert run.result().changed is True


def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.CONTAINER_TOOLKIT, params)
    run = sandbox.run(Step.CONTAINER_TOOLKIT, params)
    assert run.returncode == 0, run.stderr
    assert "apt-get" not in run.commands()
    assert [c for c in run.calls if c.startswith("apt-mark")] == ["apt-mark showhold"]
    assert run.result().changed is False


def test_new_pin_unholds_installs_and_reholds(sandbox: Sandbox) -> None:
    sandbox.run(Step.CONTAINER_TOOLKIT, ready(sandbox, "1.17.8-1"))
    run = sandbox.run(Step.CONTAINER_TOOLKIT, ready(sandbox, "1.19.1-1"))
    assert run.returncode == 0, run.stderr
    order = [c for c in run.calls if c.split(" ")[0] in {"apt-get", "apt-mark"}]
    assert order == [
        "apt-mark showhold",
        "apt-mark unhold " + " ".join(PACKAGES),
        f"{APT} update",
        f"{APT} install --no-install-recommends --allow-downgrades "
        + " ".join(f"{p}=1.19.1-1" for p in PACKAGES),
        "apt-mark hold " + " ".join(PACKAGES),
    ]
    assert all(sandbox.version(p) == "1.19.1-1" for p in PACKAGES)
    assert sandbox.held() == set(PACKAGES)
    assert run.result().model_extra == {"toolkitVersion": "1.19.1-1"}


def test_one_package_off_pin_reinstalls_all_four(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.CONTAINER_TOOLKIT, params)
    sandbox.installed("libnvidia-container1", "1.18.0-1")  # an unattended upgrade slipped
    run = sandbox.run(Step.CONTAINER_TOOLKIT, params)
    assert run.returncode == 0, run.stderr
    assert sandbox.version("libnvidia-container1") == "1.17.8-1"
    assert any("libnvidia-container1=1.17.8-1" in c for c in run.calls)


def test_installed_but_unheld_only_holds(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.CONTAINER_TOOLKIT, params)
    (sandbox.state / "held" / "libnvidia-container1").unlink()
    run = sandbox.run(Step.CONTAINER_TOOLKIT, params)
    assert "apt-get" not in run.commands()
    assert "apt-mark hold libnvidia-container1" in run.calls
    assert sandbox.held() == set(PACKAGES)


def test_missing_version_fails_naming_the_step(sandbox: Sandbox) -> None:
    sandbox.put("apt-missing-nvidia-container-toolkit=9.9.9-1")
    run = sandbox.run(Step.CONTAINER_TOOLKIT, ready(sandbox, "9.9.9-1"))
    assert run.returncode != 0
    assert "gpu-ci step container-toolkit: apt-get install failed" in run.stderr
    assert "apt-mark hold" not in " ".join(run.calls)
