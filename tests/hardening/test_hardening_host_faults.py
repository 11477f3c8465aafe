"""Faults on the host that the per-step tests (tests/host) leave open: a partial failure
followed by a rerun that converges, an nvkind create that fails halfway, and a destroy
that removes the cluster and deregisters the runner in the order the program gives it.

Retries (apt/dpkg lock, network), checksum mismatches, Docker restart failures and the
driver reboot are proven step by step in tests/host (test_lib_retry.py, test_step_*.py).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from components.host.params.bootstrap import (
    ContainerToolkitParams,
    DockerParams,
    InotifyParams,
    ToolkitConfigParams,
)
from components.host.params.cluster import NvkindClusterDeleteParams
from components.host.params.runner import GithubRunnerRemoveParams
from components.host.params.step import Step, StepParams
from stacks.offline.engine.records import Registration
from stacks.offline.plan import plan_run
from tests.components.host.github import API, RUNNER_ID, install, needs_jq, run_loop, serve_github
from tests.components.host.nvkind_steps import A10, cluster_params, create, run_step
from tests.components.host.sandbox import Run, Sandbox

KEY_FILE = "etc/gpu-ci/github-app/private-key.pem"
PENDING = "var/lib/gpu-ci/toolkit-config/docker-restart-pending"
PACKAGES = (
    "nvidia-container-toolkit",
    "nvidia-container-toolkit-base",
    "libnvidia-container-tools",
    "libnvidia-container1",
)
COMMANDS = ("command:remote:Command", "command:local:Command")


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def changed(run: Run) -> bool:
    assert run.returncode == 0, run.stderr
    return run.result().changed


# -- a partial failure, then a rerun that converges ----------------------------------------


def test_a_failed_docker_restart_is_owed_until_a_rerun_restarts_docker(sandbox: Sandbox) -> None:
    """The config files change, the restart fails: the rerun (same files) must restart."""
    params = sandbox.params(ToolkitConfigParams)
    sandbox.put("restart-fail-docker")
    failed = sandbox.run(Step.TOOLKIT_CONFIG, params)
    assert failed.returncode != 0
    assert "gpu-ci step toolkit-config: docker restart failed" in failed.stderr
    assert (sandbox.root / PENDING).exists()
    (sandbox.state / "restart-fail-docker").unlink()

    rerun = sandbox.run(Step.TOOLKIT_CONFIG, params)
    assert changed(rerun) is True
    assert rerun.calls[-1] == "systemctl restart docker"
    assert not (sandbox.root / PENDING).exists()
    again = sandbox.run(Step.TOOLKIT_CONFIG, params)
    assert changed(again) is False
    assert "systemctl" not in again.commands()


def test_a_bootstrap_that_fails_midway_converges_on_the_rerun(sandbox: Sandbox) -> None:
    """apt's lock held past the retries fails container-toolkit after docker succeeded.

    `pulumi up` again runs the failed step and those after it; once more, every step
    (a trigger change re-runs them all) finds the host as it wants it and changes nothing.
    """
    sandbox.serve("https://download.docker.com/linux/ubuntu/gpg", b"DOCKER KEY")
    sandbox.serve("https://nvidia.github.io/libnvidia-container/gpgkey", b"NV KEY")
    sandbox.put("group-docker", "")
    sandbox.put("sysctl-fs.inotify.max_user_watches", "65536")
    sandbox.put("sysctl-fs.inotify.max_user_instances", "128")
    steps: list[tuple[Step, StepParams]] = [
        (Step.DOCKER, sandbox.params(DockerParams, docker_user="ubuntu")),
        (Step.CONTAINER_TOOLKIT, sandbox.params(ContainerToolkitParams, retry_attempts=3)),
        (Step.TOOLKIT_CONFIG, sandbox.params(ToolkitConfigParams)),
        (Step.INOTIFY, sandbox.params(InotifyParams)),
    ]
    assert changed(sandbox.run(*steps[0])) is True
    sandbox.put("apt-lock", "100")
    failed = sandbox.run(*steps[1])
    assert failed.returncode != 0
    assert "gpu-ci step container-toolkit: apt-get update still blocked" in failed.stderr
    assert [sandbox.version(p) for p in PACKAGES] == [None] * 4  # nothing half-installed
    assert sandbox.held() == set()
    (sandbox.state / "apt-lock").unlink()

    assert [changed(sandbox.run(*step)) for step in steps[1:]] == [True, True, True]
    assert all(sandbox.version(p) == "1.17.8-1" for p in PACKAGES)
    assert sandbox.held() == set(PACKAGES)
    assert [changed(sandbox.run(*step)) for step in steps] == [False] * 4


@pytest.mark.parametrize(
    ("fault", "content"),
    [
        ("nvkind-create-fail", "installing container toolkit on node 'gpu-ci-worker'\n"),
        ("print-gpus-fail", "executing command: exit status 9\n"),
    ],
)
def test_an_nvkind_create_that_fails_halfway_leaves_no_orphan_after_the_rerun(
    sandbox: Sandbox, fault: str, content: str
) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    sandbox.put(fault, content)
    failed = create(sandbox, params)
    assert failed.returncode != 0 and failed.stdout == ""
    assert sandbox.kind_clusters() == ["gpu-ci"]  # kind made it; the GPU part failed
    record = sandbox.root / "var/lib/gpu-ci/nvkind/gpu-ci/config.sha256"
    assert not record.exists()  # never adopted as it is
    (sandbox.state / fault).unlink()

    rerun = create(sandbox, params)
    assert changed(rerun) is True
    assert rerun.result().model_extra["action"] == "replaced"  # type: ignore[index]
    delete = next(i for i, c in enumerate(rerun.calls) if c.startswith("kind delete cluster"))
    made = next(i for i, c in enumerate(rerun.calls) if c.startswith("nvkind cluster create"))
    assert delete < made  # the half-made cluster went first
    assert sandbox.kind_clusters() == ["gpu-ci"] and record.exists()
    again = create(sandbox, params)
    assert changed(again) is False
    assert again.result().model_extra["action"] == "adopted"  # type: ignore[index]
    assert not any(c.startswith(("kind delete", "nvkind cluster create")) for c in again.calls)


# -- destroy -----------------------------------------------------------------------------


def destroy_order(registrations: list[Registration]) -> list[Registration]:
    """Resources with a delete command, in the order `pulumi destroy` runs them: each one
    after every resource that depends on it, directly or through others."""
    deps = {r.urn: set(r.dependencies) for r in registrations}

    def closure(urn: str, seen: set[str]) -> set[str]:
        for dep in deps.get(urn, set()) - seen:
            seen.add(dep)
            closure(dep, seen)
        return seen

    upstream = {r.urn: closure(r.urn, set()) for r in registrations}
    deleting = [r for r in registrations if r.type in COMMANDS and r.inputs.get("delete")]
    order: list[Registration] = []
    while deleting:
        ready = [
            r for r in deleting if not any(r.urn in upstream[o.urn] for o in deleting if o is not r)
        ]
        assert ready, "dependency cycle among delete commands"
        order += ready
        deleting = [r for r in deleting if r not in ready]
    return order


def parameters(script: str) -> dict[str, str]:
    """A rendered step's one-line `readonly NAME=value` parameters."""
    found = {}
    for line in script.splitlines():
        if line.startswith("readonly ") and "=" in line and not line.startswith("readonly -a"):
            name, _, value = line.removeprefix("readonly ").partition("=")
            try:
                found[name] = " ".join(shlex.split(value))
            except ValueError:  # a multi-line value (the kind config)
                continue
    return found


def _inner(command: str) -> str:
    argv = shlex.split(command)
    assert argv[:2] == ["bash", "-c"], command
    return argv[2]


def test_destroy_deregisters_the_runner_it_registered_and_deletes_the_cluster_it_made() -> None:
    dev = plan_run("dev")
    order = [r.name for r in destroy_order(dev.registrations)]
    assert set(order) == {
        "host-0-runner-github-runner",
        "host-0-runner-github-app-key",
        "cluster-nvkind-cluster",
    }
    # Deregistration signs with the App key: the key file goes only after the runner.
    assert order.index("host-0-runner-github-runner") < order.index("host-0-runner-github-app-key")

    service = dev.one("command:remote:Command", "host-0-runner-github-runner")
    installed, removed = (
        parameters(service.inputs["stdin"]),
        parameters(_inner(service.inputs["delete"])),
    )
    assert removed["GPU_CI_STEP"] == "github-runner-remove"
    # It reads the scope, App and key from the env file the runner step wrote.
    for name in ("ROOT", "SERVICE_NAME", "ENV_FILE", "LOOP_SCRIPT", "RUNNER_HOME", "STATEDIR"):
        assert removed[name] == installed[name], name
    assert removed["PURGE"] == "true"

    cluster = dev.one("command:remote:Command", "cluster-nvkind-cluster")
    made, deleted = (
        parameters(cluster.inputs["stdin"]),
        parameters(_inner(cluster.inputs["delete"])),
    )
    assert deleted["GPU_CI_STEP"] == "nvkind-cluster-delete"
    for name in ("ROOT", "CLUSTER_NAME", "STATEDIR", "KUBECONFIG_PATH", "USE_SUDO"):
        assert deleted[name] == made[name], name
    key = dev.one("command:remote:Command", "host-0-runner-github-app-key")
    assert f"rm -f /{KEY_FILE}" in key.inputs["delete"]


@needs_jq
def test_destroy_in_the_programs_order_leaves_nothing_behind(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    assert run_loop(sandbox, "prepare").returncode == 0  # a registered ephemeral runner
    sandbox.api("DELETE", f"{API}/orgs/acme/actions/runners/{RUNNER_ID}", 204, "")
    sandbox.gpus(A10)
    cluster = cluster_params(sandbox)
    assert create(sandbox, cluster).returncode == 0

    def remove_runner() -> None:
        params = GithubRunnerRemoveParams.for_runner(runner)
        assert changed(sandbox.run(Step.GITHUB_RUNNER_REMOVE, params)) is True

    def remove_key() -> None:
        (sandbox.root / KEY_FILE).unlink()

    def delete_cluster() -> None:
        params = NvkindClusterDeleteParams.for_cluster(cluster)
        assert changed(run_step(sandbox, Step.NVKIND_CLUSTER_DELETE, params, None)) is True

    actions = {
        "host-0-runner-github-runner": remove_runner,
        "host-0-runner-github-app-key": remove_key,
        "cluster-nvkind-cluster": delete_cluster,
    }
    for resource in destroy_order(plan_run("dev").registrations):
        actions[resource.name]()

    assert sandbox.kind_clusters() == []
    assert not (sandbox.root / "var/lib/gpu-ci/nvkind/gpu-ci").exists()
    deleted = [(m, u) for m, u, _ in sandbox.api_requests() if m == "DELETE"]
    assert deleted == [("DELETE", f"{API}/orgs/acme/actions/runners/{RUNNER_ID}")]
    for path in (
        "opt/gpu-ci-runner",
        "var/lib/gpu-ci/runner",
        "etc/gpu-ci/github-runner.env",
        KEY_FILE,
    ):
        assert not (sandbox.root / path).exists(), path


@needs_jq
def test_the_key_must_outlive_the_runner(sandbox: Sandbox) -> None:
    """Why the order above matters: without the key, the runner cannot be deregistered."""
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    assert run_loop(sandbox, "prepare").returncode == 0
    (sandbox.root / KEY_FILE).unlink()
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, GithubRunnerRemoveParams.for_runner(runner))
    assert run.returncode != 0
    assert "private key" in run.stderr
