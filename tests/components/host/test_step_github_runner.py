"""Step github-runner: pinned, verified runner; user, env file, loop and unit; idempotent."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from components.host.params.runner import GithubRunnerParams
from components.host.params.step import Step
from components.pins import PINS

from .github import LOOP, OWNER, assert_no_secret, ready, runner_tarball
from .sandbox import Run, Sandbox

APT = "apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
QUERY = "dpkg-query -W -f=${Status}\\t${Version}"
ENV_FILE = "etc/gpu-ci/github-runner.env"
UNIT = "etc/systemd/system/gpu-ci-runner.service"
KEY = "etc/gpu-ci/github-app/private-key.pem"
HOME_LINES = [
    "# A home new per start (the RuntimeDirectory, removed at stop): nothing a job leaves in",
    "# it reaches the next job.",
    "Environment=HOME=/run/gpu-ci-runner",
]
KILL_LINES = [
    "# mixed: SIGTERM to run.sh alone (it stops the job gracefully), then SIGKILL to every",
    "# process left in the unit's cgroup: no process of a job outlives it to read the next",
    "# job's just-in-time config (systemd.kill(5), KillMode=).",
    "KillMode=mixed",
]


def host(sandbox: Sandbox, path: str) -> Path:
    return sandbox.root / path


def runner_dir(sandbox: Sandbox, version: str = PINS.runner.version) -> Path:
    return sandbox.root / "opt/gpu-ci-runner" / version


def without_tmp(run: Run, sandbox: Sandbox) -> list[str]:
    """Calls with the random work directory and the sandbox root made readable."""
    out = []
    for call in run.calls:
        words = []
        for word in call.split(" "):
            readable = word
            if word.startswith(str(sandbox.tmp)):
                readable = "$WORK/" + word.rsplit("/", 1)[1]
            words.append(readable.replace(str(sandbox.root), "$ROOT"))
        out.append(" ".join(words))
    return out


def test_fresh_host_installs_and_starts_the_runner(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert without_tmp(run, sandbox) == [
        f"{QUERY} jq",
        f"{QUERY} openssl",
        f"{QUERY} curl",
        "id -u gpu-ci-runner",
        "useradd --system --user-group --no-create-home --home-dir /opt/gpu-ci-runner "
        "--shell /bin/bash gpu-ci-runner",
        "getent group docker",  # jobRoot is off: no usermod, no sudoers rule
        "curl -fsSL --proto =https --connect-timeout 20 -o $WORK/runner.tar.gz "
        + params.runner_url,
        "chown -R root:root $ROOT/opt/gpu-ci-runner/2.337.0.gpu-ci-new",
        "chown root:gpu-ci-runner $ROOT/opt/gpu-ci-runner/2.337.0.gpu-ci-new",
        "chown root:root $ROOT/opt/gpu-ci-runner",
        "systemctl daemon-reload",
        "systemctl is-enabled --quiet gpu-ci-runner",
        "systemctl enable gpu-ci-runner",
        "systemctl restart gpu-ci-runner",
    ]
    assert params.runner_url == (
        "https://github.com/actions/runner/releases/download/v2.337.0/"
        "actions-runner-linux-x64-2.337.0.tar.gz"
    )
    assert (runner_dir(sandbox) / "run.sh").stat().st_mode & 0o777 == 0o755
    # Sticky and group-writable: the runner adds its files, no job replaces root's.
    assert runner_dir(sandbox).stat().st_mode & 0o7777 == 0o1775
    assert (sandbox.root / "opt/gpu-ci-runner").stat().st_mode & 0o7777 == 0o755
    assert (runner_dir(sandbox) / "config.sh").is_file()
    assert not (sandbox.root / "opt/gpu-ci-runner/2.337.0.gpu-ci-new").exists()
    assert host(sandbox, "var/lib/gpu-ci/runner/runner-2.337.0.sha256").read_text() == (
        params.runner_sha256 + " root-owned\n"
    )
    assert sandbox.read("group-docker") == "ubuntu"  # not in the docker group
    assert sandbox.exists("user-gpu-ci-runner")

    env = host(sandbox, ENV_FILE)
    assert env.stat().st_mode & 0o777 == 0o644
    assert env.read_text() == (
        "# gpu-ci github-runner: parameters of /usr/local/lib/gpu-ci/github-runner-loop.sh "
        "(no secrets).\n"
        "GITHUB_URL=https://github.com/acme\n"
        "GITHUB_API_URL=https://api.github.com\n"
        "GITHUB_SCOPE=orgs/acme\n"
        "APP_ID=123\n"
        "INSTALLATION_ID=456\n"
        "KEY_FILE=/etc/gpu-ci/github-app/private-key.pem\n"
        "RUNNER_NAME=gpu-ci-dev-gpu-0\n"
        "RUNNER_GROUP=GPUs\n"
        "EPHEMERAL=true\n"
        "RUNNER_USER=gpu-ci-runner\n"
        "STATEDIR=/var/lib/gpu-ci/runner\n"
        "RETRY_ATTEMPTS=6\n"
        "RETRY_BASE_SECONDS=0\n"
        "RUNNER_LABELS=oracle-vm-gpu-a10-1\\,gpu\n"
        "RUNNER_DIR=/opt/gpu-ci-runner/2.337.0\n"
        "RUNTIME_DIR=/run/gpu-ci-runner\n"
    )
    loop = host(sandbox, "usr/local/lib/gpu-ci/github-runner-loop.sh")
    assert loop.read_bytes() == LOOP.read_bytes()
    assert loop.stat().st_mode & 0o777 == 0o755
    unit = host(sandbox, UNIT).read_text()
    service = unit.split("[Service]\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert service == [
        "Type=simple",
        "User=gpu-ci-runner",
        "WorkingDirectory=/opt/gpu-ci-runner/2.337.0",
        "RuntimeDirectory=gpu-ci-runner",
        "RuntimeDirectoryMode=0700",
        "ExecStartPre=+/usr/local/lib/gpu-ci/github-runner-loop.sh prepare "
        "/etc/gpu-ci/github-runner.env",
        "ExecStart=/usr/local/lib/gpu-ci/github-runner-loop.sh run /etc/gpu-ci/github-runner.env",
        "ExecStopPost=-+/usr/local/lib/gpu-ci/github-runner-loop.sh cleanup "
        "/etc/gpu-ci/github-runner.env",
        "# run.sh passes SIGTERM on to the listener (and so to a running job) only with this set;",
        "# without it a stop or restart would kill the wrapper and orphan the runner.",
        "Environment=RUNNER_MANUALLY_TRAP_SIG=1",
        *HOME_LINES,
        "# No root for jobs: no setuid (sudo, su, crontab, at), a /tmp of their own.",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "Restart=always",
        "RestartSec=10",
        *KILL_LINES,
        "KillSignal=SIGTERM",
        "TimeoutStopSec=5min",
    ]
    assert "WantedBy=multi-user.target" in unit
    assert not host(sandbox, "etc/sudoers.d/gpu-ci-runner").exists()

    result = run.result()
    assert result.changed is True
    assert result.model_extra == {
        "runnerName": "gpu-ci-dev-gpu-0",
        "labels": ["oracle-vm-gpu-a10-1", "gpu"],
        "runnerVersion": "2.337.0",
        "ephemeral": True,
        "service": "gpu-ci-runner",
        "jobRoot": False,
    }
    # The step mints nothing: no API call, and no secret anywhere but the key file.
    assert sandbox.api_requests() == []
    assert_no_secret(sandbox, run, allowed=(host(sandbox, KEY),))


def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.GITHUB_RUNNER, params)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert without_tmp(run, sandbox) == [
        f"{QUERY} jq",
        f"{QUERY} openssl",
        f"{QUERY} curl",
        "id -u gpu-ci-runner",
        "getent group docker",
        "systemctl is-enabled --quiet gpu-ci-runner",
    ]
    assert run.result().changed is False


def test_missing_packages_are_installed(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    (sandbox.state / "dpkg" / "jq").unlink()
    (sandbox.state / "dpkg" / "openssl").unlink()
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert [c for c in run.calls if c.startswith("apt-get")] == [
        f"{APT} update",
        f"{APT} install --no-install-recommends jq openssl",
    ]


def test_no_docker_group_means_no_usermod(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    (sandbox.state / "group-docker").unlink()
    sandbox.user("gpu-ci-runner")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert "usermod" not in run.commands()
    assert "useradd" not in run.commands()


def test_checksum_mismatch_installs_nothing(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.serve(params.runner_url, b"tampered runner tarball")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert (
        f"gpu-ci step github-runner: checksum mismatch for actions runner 2.337.0 "
        f"({params.runner_url}): expected {params.runner_sha256}" in run.stderr
    )
    assert not runner_dir(sandbox).exists()
    assert not host(sandbox, UNIT).exists()
    assert not host(sandbox, ENV_FILE).exists()
    assert "systemctl" not in run.commands()


def test_download_network_error_is_retried(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.put("curl-network", "2")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert run.commands().count("curl") == 3
    assert "network error (curl exit 6), retry 1/6" in run.stderr


def test_download_network_error_exhausted(sandbox: Sandbox) -> None:
    params = ready(sandbox, retry_attempts=2)
    sandbox.put("curl-network", "99")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert run.commands().count("curl") == 2
    assert (
        f"gpu-ci step github-runner: download of {params.runner_url} failed after 2 attempts "
        "(curl exit 6)" in run.stderr
    )
    assert not host(sandbox, UNIT).exists()


def test_tarball_without_run_sh_is_refused(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    digest = sandbox.serve(params.runner_url, tar_without_run_sh())
    run = sandbox.run(Step.GITHUB_RUNNER, params.model_copy(update={"runner_sha256": digest}))
    assert run.returncode != 0
    assert "gpu-ci step github-runner: actions runner 2.337.0 tarball has no run.sh" in run.stderr
    assert not any((sandbox.root / "opt/gpu-ci-runner").iterdir())


def tar_without_run_sh() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("./config.sh")
        tar.addfile(info, io.BytesIO(b""))
    return buf.getvalue()


def test_missing_app_key_fails_first(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    host(sandbox, KEY).unlink()
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci step github-runner: no GitHub App private key at "
        "/etc/gpu-ci/github-app/private-key.pem: run the github-app-key step first"
    )
    assert run.calls == []


def test_service_that_does_not_start_fails_the_step(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.put("restart-fail-gpu-ci-runner")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert (
        "gpu-ci step github-runner: gpu-ci-runner.service did not start "
        "(see journalctl -u gpu-ci-runner)" in run.stderr
    )


def test_new_labels_rewrite_env_and_restart_without_download(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.GITHUB_RUNNER, params)
    run = sandbox.run(
        Step.GITHUB_RUNNER, params.model_copy(update={"runner_labels": ("oracle-vm-gpu-a10-2",)})
    )
    assert run.returncode == 0, run.stderr
    assert "curl" not in run.commands()
    assert "systemctl daemon-reload" not in run.calls  # the unit itself did not change
    assert run.calls[-1] == "systemctl restart gpu-ci-runner"
    assert "RUNNER_LABELS=oracle-vm-gpu-a10-2\n" in host(sandbox, ENV_FILE).read_text()
    extra = run.result().model_extra
    assert extra is not None
    assert extra["labels"] == ["oracle-vm-gpu-a10-2"]


def test_new_runner_version_replaces_the_old_one(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.GITHUB_RUNNER, params)
    url = params.runner_url.replace("2.337.0", "2.338.0")
    digest = sandbox.serve(url, runner_tarball("2.338.0"))
    newer = params.model_copy(
        update={"runner_url": url, "runner_sha256": digest, "runner_version": "2.338.0"}
    )
    run = sandbox.run(Step.GITHUB_RUNNER, newer)
    assert run.returncode == 0, run.stderr
    assert [c.split(" ")[-1] for c in run.calls if c.startswith("curl")] == [url]
    assert "systemctl daemon-reload" in run.calls  # WorkingDirectory moved
    assert run.calls[-1] == "systemctl restart gpu-ci-runner"
    assert (runner_dir(sandbox, "2.338.0") / "run.sh").is_file()
    assert not runner_dir(sandbox, "2.337.0").exists()
    assert not host(sandbox, "var/lib/gpu-ci/runner/runner-2.337.0.sha256").exists()
    assert "RUNNER_DIR=/opt/gpu-ci-runner/2.338.0\n" in host(sandbox, ENV_FILE).read_text()
    assert "removed actions runner 2.337.0" in run.stderr


def test_deleted_runner_files_are_reinstalled(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    sandbox.run(Step.GITHUB_RUNNER, params)
    (runner_dir(sandbox) / "run.sh").unlink()
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert (runner_dir(sandbox) / "run.sh").is_file()
    assert run.result().changed is True


def test_persistent_runner_unit(sandbox: Sandbox) -> None:
    params = ready(sandbox, ephemeral=False)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert "EPHEMERAL=false\n" in host(sandbox, ENV_FILE).read_text()
    assert "(persistent)" in host(sandbox, UNIT).read_text()
    extra = run.result().model_extra
    assert extra is not None
    assert extra["ephemeral"] is False


def test_job_root_grants_sudo_and_the_docker_group(sandbox: Sandbox) -> None:
    params = ready(sandbox, job_root=True)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    calls = without_tmp(run, sandbox)
    assert calls[5:7] == ["getent group docker", "usermod -aG docker gpu-ci-runner"]
    assert "visudo -cqf $WORK/sudoers" in calls
    assert sandbox.read("group-docker") == "ubuntu,gpu-ci-runner"
    sudoers = host(sandbox, "etc/sudoers.d/gpu-ci-runner")
    assert sudoers.read_text() == "gpu-ci-runner ALL=(ALL) NOPASSWD:ALL\n"
    assert sudoers.stat().st_mode & 0o777 == 0o440
    unit = host(sandbox, UNIT).read_text()
    assert "(ephemeral: one job per start, jobs get root)" in unit
    assert "# jobRoot: jobs get root (sudo and the docker group); no confinement here.\n" in unit
    assert "NoNewPrivileges" not in unit and "PrivateTmp" not in unit  # sudo is setuid
    assert "KillMode=mixed\n" in unit
    extra = run.result().model_extra
    assert extra is not None and extra["jobRoot"] is True
    again = sandbox.run(Step.GITHUB_RUNNER, params)
    assert again.result().changed is False
    assert "usermod" not in again.commands()


def test_job_root_off_takes_back_sudo_and_the_docker_group(sandbox: Sandbox) -> None:
    params = ready(sandbox, job_root=True)
    sandbox.run(Step.GITHUB_RUNNER, params)
    run = sandbox.run(Step.GITHUB_RUNNER, params.model_copy(update={"job_root": False}))
    assert run.returncode == 0, run.stderr
    assert without_tmp(run, sandbox) == [
        f"{QUERY} jq",
        f"{QUERY} openssl",
        f"{QUERY} curl",
        "id -u gpu-ci-runner",
        "getent group docker",
        "gpasswd -d gpu-ci-runner docker",
        "systemctl daemon-reload",  # the unit gains NoNewPrivileges and PrivateTmp
        "systemctl is-enabled --quiet gpu-ci-runner",
        "systemctl restart gpu-ci-runner",  # group membership applies per start
    ]
    assert sandbox.read("group-docker") == "ubuntu"
    assert not host(sandbox, "etc/sudoers.d/gpu-ci-runner").exists()
    assert "removed gpu-ci-runner from group docker (jobRoot is off)" in run.stderr
    assert "NoNewPrivileges=yes\nPrivateTmp=yes\n" in host(sandbox, UNIT).read_text()
    assert run.result().changed is True


def test_invalid_sudoers_rule_fails(sandbox: Sandbox) -> None:
    params = ready(sandbox, job_root=True)
    sandbox.put("visudo-fail")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert "gpu-ci step github-runner: the sudoers rule for gpu-ci-runner does not validate" in (
        run.stderr
    )
    assert not host(sandbox, "etc/sudoers.d/gpu-ci-runner").exists()


def test_app_key_readable_by_others_is_refused(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    host(sandbox, KEY).chmod(0o640)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci step github-runner: the GitHub App key /etc/gpu-ci/github-app/private-key.pem "
        f"is 640 {OWNER} in a directory 700 {OWNER}, not 600 and 700 owned by {OWNER}: run the "
        "github-app-key step again"
    )
    assert run.calls == []


def test_app_key_directory_open_to_others_is_refused(sandbox: Sandbox) -> None:
    params = ready(sandbox)
    host(sandbox, KEY).parent.chmod(0o755)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert f"in a directory 755 {OWNER}, not 600 and 700" in run.stderr
    assert run.calls == []


def test_app_key_of_another_owner_is_refused(sandbox: Sandbox) -> None:
    params = ready(sandbox, key_owner="gpu-ci-minter")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode != 0
    assert f"is 600 {OWNER} in a directory 700 {OWNER}, not 600 and 700 owned by " in run.stderr
    assert run.calls == []


def test_runner_extracted_by_an_older_step_is_made_root_owned(sandbox: Sandbox) -> None:
    """A host set up before the runner's files were root-owned (its stamp: the digest
    alone, the runner user owning RUNNER_HOME) gets the runner extracted again."""
    params = ready(sandbox)
    sandbox.run(Step.GITHUB_RUNNER, params)
    stamp = host(sandbox, "var/lib/gpu-ci/runner/runner-2.337.0.sha256")
    stamp.write_text(params.runner_sha256 + "\n")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert "chown root:root $ROOT/opt/gpu-ci-runner" in without_tmp(run, sandbox)
    assert stamp.read_text() == params.runner_sha256 + " root-owned\n"
    assert run.calls[-1] == "systemctl restart gpu-ci-runner"


def test_repository_scope(sandbox: Sandbox) -> None:
    params = ready(sandbox, github_url="https://github.com/acme/trainer", runner_group="Default")
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    assert "GITHUB_SCOPE=repos/acme/trainer\n" in host(sandbox, ENV_FILE).read_text()


def test_params_pin_the_runner_per_arch() -> None:
    params = GithubRunnerParams.from_pins(
        arch="arm64",
        github_url="https://github.com/enterprises/cncf",
        app_id=1,
        installation_id=2,
        runner_name="gpu-ci",
        runner_labels=("oracle-vm-gpu-a10-1",),
    )
    assert params.runner_url.endswith("/v2.337.0/actions-runner-linux-arm64-2.337.0.tar.gz")
    assert params.runner_sha256 == PINS.runner.sha256["arm64"]
    assert params.github_scope == "enterprises/cncf"
