"""Step docker: Docker's apt repo, the engine, the service, the docker group."""

from __future__ import annotations

from components.host.params.bootstrap import DockerParams
from components.host.params.step import Step

from .sandbox import Sandbox

APT = "apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
PACKAGES = "docker-ce docker-ce-cli containerd.io docker-buildx-plugin docker-compose-plugin"


def ready(sandbox: Sandbox) -> DockerParams:
    sandbox.serve("https://download.docker.com/linux/ubuntu/gpg", b"DOCKER KEY")
    sandbox.put("group-docker", "")
    return sandbox.params(DockerParams, docker_user="ubuntu")


def test_fresh_host_happy_path(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.DOCKER, ready(sandbox))
    assert run.returncode == 0, run.stderr
    assert [c for c in run.calls if not c.startswith("dpkg-query")] == [
        "curl -fsSL --proto =https --connect-timeout 20 -o "
        + next(c for c in run.calls if c.startswith("curl")).split(" -o ")[1],
        "dpkg --print-architecture",
        f"{APT} update",
        f"{APT} install --no-install-recommends {PACKAGES}",
        "systemctl is-enabled --quiet docker",
        "systemctl enable --now docker",
        "getent group docker",
        "usermod -aG docker ubuntu",
    ]
    assert (sandbox.root / "etc/apt/keyrings/docker.asc").read_bytes() == b"DOCKER KEY"
    assert (sandbox.root / "etc/apt/sources.list.d/docker.list").read_text() == (
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.asc] "
        "https://download.docker.com/linux/ubuntu noble stable\n"
    )
    assert sandbox.read("group-docker") == "ubuntu"
    assert run.result().changed is True


def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    assert sandbox.run(Step.DOCKER, params).returncode == 0
    run = sandbox.run(Step.DOCKER, params)
    assert run.returncode == 0, run.stderr
    assert set(run.commands()) == {"dpkg", "dpkg-query", "systemctl", "getent"}
    assert "systemctl enable --now docker" not in run.calls
    assert run.result().changed is False


def test_stopped_service_is_started_without_reinstall(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.DOCKER, params)
    (sandbox.state / "active-docker").unlink()
    run = sandbox.run(Step.DOCKER, params)
    assert "systemctl enable --now docker" in run.calls
    assert "apt-get" not in run.commands()


def test_changed_repo_url_rewrites_source_and_updates(sandbox: Sandbox) -> None:
    sandbox.run(Step.DOCKER, ready(sandbox))
    mirror = sandbox.params(
        DockerParams, docker_user="ubuntu", docker_repo_url="https://mirror.example/docker"
    )
    run = sandbox.run(Step.DOCKER, mirror)
    assert run.returncode == 0, run.stderr
    assert f"{APT} update" in run.calls
    assert "install" not in " ".join(run.calls)
    assert "mirror.example" in (sandbox.root / "etc/apt/sources.list.d/docker.list").read_text()


def test_key_download_failure_fails_naming_the_step(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.DOCKER, sandbox.params(DockerParams))
    assert run.returncode != 0
    assert "gpu-ci step docker: download of https://download.docker.com/linux/ubuntu/gpg" in (
        run.stderr
    )
    assert "apt-get" not in run.commands()
