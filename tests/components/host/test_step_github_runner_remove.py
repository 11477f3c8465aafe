"""Step github-runner-remove: stop, deregister, remove; idempotent, tolerant of 'gone'."""

from __future__ import annotations

from components.host.params.runner import GithubRunnerParams, GithubRunnerRemoveParams
from components.host.params.step import Step

from .github import (
    API,
    INSTALLATION_TOKEN,
    RUNNER_ID,
    assert_no_secret,
    install,
    needs_jq,
    run_loop,
    serve_github,
)
from .sandbox import Sandbox

ORG = "orgs/acme"
KEY_FILE = "etc/gpu-ci/github-app/private-key.pem"
INSTALLED = (
    "etc/systemd/system/gpu-ci-runner.service",
    "etc/gpu-ci/github-runner.env",
    "usr/local/lib/gpu-ci/github-runner-loop.sh",
    "etc/sudoers.d/gpu-ci-runner",
    "opt/gpu-ci-runner",
    "var/lib/gpu-ci/runner",
)


def remove_params(runner: GithubRunnerParams, **values: object) -> GithubRunnerRemoveParams:
    return GithubRunnerRemoveParams.for_runner(runner, **values)


@needs_jq
def test_removes_a_registered_ephemeral_runner(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    assert run_loop(sandbox, "prepare").returncode == 0  # the service registered a runner
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/{RUNNER_ID}", 204, "")
    (sandbox.state / "api-requests.log").unlink()

    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode == 0, run.stderr
    assert [c.split(" ")[0] + " " + c.split(" ")[1] for c in run.calls] == [
        "systemctl disable",
        "openssl dgst",
        "curl -sS",
        "curl -sS",
        "systemctl daemon-reload",
    ]
    assert run.calls[0] == "systemctl disable --now gpu-ci-runner"
    assert sandbox.api_requests() == [
        ("POST", f"{API}/app/installations/456/access_tokens", sandbox.api_requests()[0][2]),
        ("DELETE", f"{API}/{ORG}/actions/runners/{RUNNER_ID}", INSTALLATION_TOKEN),
    ]
    assert f"deregistered runner {RUNNER_ID} from orgs/acme" in run.stderr
    for path in INSTALLED:
        assert not (sandbox.root / path).exists(), path
    assert not sandbox.exists("enabled-gpu-ci-runner")
    assert run.result().changed is True
    assert run.result().model_extra == {"deregistered": True}
    # The key file stays (it belongs to github-app-key); no other secret is left behind.
    assert_no_secret(sandbox, run, allowed=(sandbox.root / KEY_FILE,))
    assert not (sandbox.root / "run/gpu-ci-runner").exists()


@needs_jq
def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run_loop(sandbox, "prepare")
    assert sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner)).returncode == 0
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode == 0, run.stderr
    assert run.calls == []
    assert run.result().changed is False


def test_never_installed_is_a_no_op(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, sandbox.params(GithubRunnerRemoveParams))
    assert run.returncode == 0, run.stderr
    assert run.calls == []
    assert run.result().model_extra == {"deregistered": False}
    assert run.result().changed is False


def test_installed_but_never_registered(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode == 0, run.stderr
    assert run.calls == ["systemctl disable --now gpu-ci-runner", "systemctl daemon-reload"]
    assert sandbox.api_requests() == []
    for path in INSTALLED:
        assert not (sandbox.root / path).exists(), path


@needs_jq
def test_runner_already_gone_404_is_tolerated(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run_loop(sandbox, "prepare")  # DELETE is not served: 404
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode == 0, run.stderr
    assert f"runner {RUNNER_ID} is already gone from orgs/acme" in run.stderr
    assert not (sandbox.root / "var/lib/gpu-ci/runner").exists()


@needs_jq
def test_deregistration_refused_401_fails_naming_the_step(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run_loop(sandbox, "prepare")
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/{RUNNER_ID}", 401, {"message": "Bad"})
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert lines[-2].startswith(
        f"gpu-ci github-runner-loop deregister: delete runner {RUNNER_ID}: 401 Unauthorized"
    )
    assert lines[-1] == (
        "gpu-ci step github-runner-remove: could not deregister the runner from GitHub "
        "(cause above)"
    )
    # Nothing is deleted, so a retry still knows which runner to deregister.
    assert (sandbox.root / "var/lib/gpu-ci/runner/current-runner-id").exists()
    assert (sandbox.root / "etc/gpu-ci/github-runner.env").exists()
    assert_no_secret(sandbox, run, allowed=(sandbox.root / KEY_FILE,))


@needs_jq
def test_persistent_runner_is_deregistered_by_its_agent_id(sandbox: Sandbox) -> None:
    runner = install(sandbox, ephemeral=False)
    serve_github(sandbox)
    (sandbox.root / "opt/gpu-ci-runner/2.337.0/.runner").write_bytes(
        b'\xef\xbb\xbf{\n  "agentId": 77,\n  "agentName": "gpu-ci-dev-gpu-0"\n}'
    )
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/77", 204, "")
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()][-1] == (
        "DELETE",
        f"{API}/{ORG}/actions/runners/77",
    )
    assert run.result().model_extra == {"deregistered": True}


def test_registered_runner_without_loop_fails_rather_than_leak(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    (sandbox.root / "var/lib/gpu-ci/runner/current-runner-id").write_text("5\n")
    (sandbox.root / "usr/local/lib/gpu-ci/github-runner-loop.sh").unlink()
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner))
    assert run.returncode != 0
    assert (
        "gpu-ci step github-runner-remove: a runner is registered but "
        "/etc/gpu-ci/github-runner.env or /usr/local/lib/gpu-ci/github-runner-loop.sh is "
        "missing: cannot deregister it" in run.stderr
    )


def test_without_purge_the_runner_files_stay(sandbox: Sandbox) -> None:
    runner = install(sandbox)
    run = sandbox.run(Step.GITHUB_RUNNER_REMOVE, remove_params(runner, purge=False))
    assert run.returncode == 0, run.stderr
    assert (sandbox.root / "opt/gpu-ci-runner/2.337.0/run.sh").exists()
    assert not (sandbox.root / "etc/systemd/system/gpu-ci-runner.service").exists()


def test_for_runner_copies_the_paths() -> None:
    runner = GithubRunnerParams.from_pins(
        github_url="https://github.com/acme",
        app_id=1,
        installation_id=2,
        runner_name="gpu-ci",
        runner_labels=("x",),
        service_name="other-runner",
        runner_home="/srv/runner",
        root="/mnt/target",
    )
    removal = GithubRunnerRemoveParams.for_runner(runner)
    assert (removal.service_name, removal.runner_home, removal.root) == (
        "other-runner",
        "/srv/runner",
        "/mnt/target",
    )
    assert removal.statedir == runner.statedir
    assert removal.env_file == runner.env_file
    assert removal.loop_script == runner.loop_script
