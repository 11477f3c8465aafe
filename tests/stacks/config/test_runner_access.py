"""`gpu-ci:runner.jobRoot` and its acknowledgements: root for jobs is opt-in, and a stack
whose jobs could read a credential that outlives them is refused unless acknowledged."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.host.config.runner import RunnerConfig
from components.host.params.runner import GithubAppKeyParams, GithubRunnerParams
from stacks.config.param_keys import RUNNER_KEYS

APP = {"appId": 1, "installationId": 2, "privateKey": "-----BEGIN RSA PRIVATE KEY-----"}


def runner(**values: Any) -> RunnerConfig:
    return RunnerConfig.model_validate(
        {"url": "https://github.com/acme", "githubApp": APP, **values}
    )


def refusal(**values: Any) -> tuple[str, str]:
    with pytest.raises(ValidationError) as info:
        runner(**values)
    (error,) = info.value.errors(include_url=False)
    return ".".join(str(p) for p in error["loc"]), error["msg"].removeprefix("Value error, ")


def test_jobs_get_no_root_by_default() -> None:
    config = runner()
    assert (config.jobRoot, config.allowJobsToReadAppKey) == (False, False)
    assert GithubRunnerParams.model_fields["job_root"].default is False


def test_root_on_a_host_holding_the_app_key_is_refused_naming_the_safe_kinds() -> None:
    assert refusal(jobRoot=True) == (
        "allowJobsToReadAppKey",
        "required with jobRoot: true, which gives every job root on the host (sudo and the "
        "docker group), and root reads the GitHub App key there, which registers and removes "
        "runners until it is revoked. For jobs that need root use ARC's vm-launcher kind "
        "(gpu-ci:arc.scaleSets[].kind: vm-launcher: a fresh VM per job, the key off it), else "
        "jobRoot: false; only where every job is trusted (private repositories) set "
        "allowJobsToReadAppKey: true",
    )


def test_root_with_the_acknowledgement_is_accepted() -> None:
    config = runner(jobRoot=True, allowJobsToReadAppKey=True)
    assert config.jobRoot is True


def test_an_acknowledgement_without_its_risk_is_refused() -> None:
    assert refusal(allowJobsToReadAppKey=True) == (
        "allowJobsToReadAppKey",
        "true, but jobRoot is false: no job can read the App key; remove allowJobsToReadAppKey",
    )
    assert refusal(allowJobsToReadRunnerCredential=True) == (
        "allowJobsToReadRunnerCredential",
        "true, but the runner is ephemeral (its credential ends with its one job); remove "
        "allowJobsToReadRunnerCredential",
    )


def test_a_persistent_runner_needs_its_own_acknowledgement() -> None:
    loc, message = refusal(ephemeral=False)
    assert loc == "allowJobsToReadRunnerCredential"
    assert message.startswith(
        "required with ephemeral: false, which keeps one runner registered for good while "
        "its jobs run as the user holding its credential (.credentials_rsaparams)"
    )
    assert runner(ephemeral=False, allowJobsToReadRunnerCredential=True).ephemeral is False


def test_job_root_is_reported_at_its_key() -> None:
    assert RUNNER_KEYS.fields["job_root"] == "gpu-ci:runner.jobRoot"


def test_jobs_never_run_as_the_key_owner() -> None:
    base: dict[str, Any] = {
        "github_url": "https://github.com/acme",
        "app_id": 1,
        "installation_id": 2,
        "runner_name": "gpu-ci-dev-gpu-0",
        "runner_labels": ("oracle-vm-gpu-a10-1",),
    }
    for user, owner in (("root", "root"), ("minter", "minter")):
        with pytest.raises(ValidationError, match="jobs must run as a user of their own"):
            GithubRunnerParams.from_pins(runner_user=user, key_owner=owner, **base)
    params = GithubRunnerParams.from_pins(**base)
    assert (params.runner_user, params.key_owner) == ("gpu-ci-runner", "root")
    assert (params.key_file, params.key_owner) == (
        GithubAppKeyParams().key_file,
        GithubAppKeyParams().key_owner,
    )
