"""GithubRunner: a bootstrapped host registered as a GitHub Actions self-hosted runner.

Two steps after the host's last bootstrap step:
- `github-app-key` writes the GitHub App's private key to a 0600 file. Its script runs as
  `bash -c <script>` and the key arrives on stdin, a secret input: it is in no script,
  no log and no plain-text state. Destroy removes the file.
- `github-runner` installs the pinned runner and its systemd service, which mints a fresh
  just-in-time config from the App before every job. Destroy stops and deregisters it.
  Its script carries `JOB_ROOT` (`gpu-ci:runner.jobRoot`), so a plan diff shows a change of
  what jobs get; with root on, every plan warns that jobs can read the App key.

Their `triggers` are the machine's identity only: nothing but a new machine replaces
them (a replacement would deregister the runner, mid-job). A host pin bump does not touch
them at all; a rotated App key changes the key step's (secret) stdin, a new runner
version the runner step's script: each is an update, which re-runs `update` (= `create`,
idempotent) in place, so the runner keeps its registration. A real replacement removes
the old one first (`delete_before_replace`), so two services never share the host and the
key file a replacement wrote is never deleted by the resource it replaced.
"""

from __future__ import annotations

import shlex
from typing import Any

import pulumi
import pulumi_command as command
from pydantic import SecretStr

from components.base import ComponentArgs, PulumiInput, child, upstream
from components.host.chain import RUN_STDIN_SCRIPT, PlannedStep
from components.host.params.runner import (
    GithubAppKeyParams,
    GithubRunnerParams,
    GithubRunnerRemoveParams,
)
from components.host.params.step import Step
from components.host.render import render_script
from components.host.step_command import step_command


def runner_steps(runner: GithubRunnerParams, key: GithubAppKeyParams) -> list[PlannedStep]:
    """The key and runner steps. Not chained to the host's steps: a host pin bump must not
    re-run (let alone replace) what holds the registration."""
    if (runner.key_file, runner.key_owner) != (key.key_file, key.key_owner):
        raise ValueError(
            f"the runner reads the App key as {runner.key_owner}:{runner.key_file}, but the "
            f"key step writes it as {key.key_owner}:{key.key_file}"
        )
    key_script = render_script(Step.GITHUB_APP_KEY, key)
    runner_script = render_script(Step.GITHUB_RUNNER, runner)
    return [
        PlannedStep(
            str(Step.GITHUB_APP_KEY),
            "host",
            key_script,
            f"bash -c {shlex.quote(key_script)}",
            {"app": str(runner.app_id)},
        ),
        PlannedStep(
            str(Step.GITHUB_RUNNER),
            "host",
            runner_script,
            RUN_STDIN_SCRIPT,
            {"actions-runner": runner.runner_version},
        ),
    ]


class GithubRunnerArgs(ComponentArgs):
    connection: Any
    """`remote.ConnectionArgs` of the host."""
    identity: PulumiInput
    runner: GithubRunnerParams
    key: GithubAppKeyParams
    app_private_key: SecretStr


class GithubRunner(pulumi.ComponentResource):
    """A self-hosted runner service on a host, registered through a GitHub App.

    `opts.depends_on` names what the key step waits for (the host's last bootstrap step)."""

    service: pulumi.CustomResource
    runner_name: str
    labels: list[str]

    def __init__(
        self, name: str, args: GithubRunnerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:host:GithubRunner", name, None, opts)
        if args.runner.job_root:
            # Shown by every preview and offline plan (the runner step's script says
            # JOB_ROOT=true too): a reviewer sees what the stack grants its jobs.
            pulumi.log.warn(
                f"gpu-ci:runner.jobRoot: jobs on {args.runner.runner_name} get root (sudo and "
                f"the docker group) and can read the GitHub App key {args.key.key_file} "
                "(allowed by allowJobsToReadAppKey: private repositories only)"
            )
        key_step, runner_step = runner_steps(args.runner, args.key)
        key_file = shlex.quote(args.key.key_file)
        app_key = step_command(
            f"{name}-{key_step.name}",
            args.connection,
            child(
                self,
                depends_on=upstream(opts),
                delete_before_replace=True,
                additional_secret_outputs=["stdin", "stdout"],
            ),
            create=key_step.command,
            stdin=pulumi.Output.secret(args.app_private_key.get_secret_value()),
            delete=(
                f'if [ "$(id -u)" -eq 0 ]; then rm -f {key_file}; else sudo -n rm -f {key_file}; fi'
            ),
            update=key_step.command,
            triggers=[args.identity],
            logging=command.remote.Logging.STDERR,
            add_previous_output_in_env=False,
        )
        remove = render_script(
            Step.GITHUB_RUNNER_REMOVE, GithubRunnerRemoveParams.for_runner(args.runner)
        )
        service = step_command(
            f"{name}-{runner_step.name}",
            args.connection,
            child(self, depends_on=[app_key], delete_before_replace=True),
            create=runner_step.command,
            update=runner_step.command,
            stdin=runner_step.stdin,
            delete=f"bash -c {shlex.quote(remove)}",
            triggers=[args.identity],
        )
        self.service = service
        self.runner_name = args.runner.runner_name
        self.labels = list(args.runner.runner_labels)
        self.register_outputs(
            {
                "runnerName": self.runner_name,
                "labels": self.labels,
                "group": args.runner.runner_group,
                "githubUrl": args.runner.github_url,
                "ephemeral": args.runner.ephemeral,
                "jobRoot": args.runner.job_root,
            }
        )
