"""GitHub runner parameters: the API scope from the URL, labels, groups, no secrets."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import ValidationError

from components.host.params.by_step import PARAMS_BY_STEP
from components.host.params.runner import (
    GithubAppKeyParams,
    GithubRunnerParams,
    GithubRunnerRemoveParams,
    github_runner_loop_source,
    github_scope,
    shape_runner_label,
)
from components.host.params.step import Step
from components.host.render import render_script, script_source

from ..github import LOOP


def runner(**values: Any) -> GithubRunnerParams:
    base: dict[str, Any] = {
        "github_url": "https://github.com/acme",
        "app_id": 1,
        "installation_id": 2,
        "runner_name": "gpu-ci-dev-gpu-0",
        "runner_labels": ("oracle-vm-gpu-a10-1",),
    }
    return GithubRunnerParams.from_pins(**{**base, **values})


@pytest.mark.parametrize(
    ("url", "scope"),
    [
        ("https://github.com/kubeflow", "orgs/kubeflow"),
        ("https://github.com/kubeflow/trainer", "repos/kubeflow/trainer"),
        ("https://github.com/kubeflow/trainer/", "repos/kubeflow/trainer"),
        ("https://github.com/enterprises/cncf", "enterprises/cncf"),
        ("https://ghe.example.com/platform/ci.tools", "repos/platform/ci.tools"),
    ],
)
def test_scope_from_url(url: str, scope: str) -> None:
    assert github_scope(url) == scope
    assert runner(github_url=url, runner_group="Default").github_scope == scope


@pytest.mark.parametrize(
    "url",
    [
        "http://github.com/acme",
        "https://github.com",
        "https://github.com/a/b/c",
        "https://github.com/acme?x=1",
        "https://github.com/ac me",
        "https://token@github.com/acme",
        "github.com/acme",
    ],
)
def test_bad_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="is not https://HOST/ORG"):
        github_scope(url)
    with pytest.raises(ValidationError, match="github_url"):
        runner(github_url=url)


def test_given_scope_must_match_the_url() -> None:
    assert runner(github_scope="orgs/acme").github_scope == "orgs/acme"
    with pytest.raises(ValidationError, match="does not match github_url"):
        runner(github_scope="orgs/other")


def test_repository_runners_only_join_the_default_group() -> None:
    with pytest.raises(ValidationError, match="can only join the Default group"):
        runner(github_url="https://github.com/acme/trainer", runner_group="GPUs")
    assert runner(runner_group="GPUs").runner_group == "GPUs"


@pytest.mark.parametrize(
    "values",
    [
        {"runner_labels": ()},
        {"runner_labels": ("a,b",)},
        {"runner_labels": ("has space",)},
        {"runner_labels": ("x", "x")},
        {"runner_name": "n" * 56},
        {"runner_name": "-leading"},
        {"runner_group": "bad,group"},
        {"app_id": 0},
        {"runner_user": "Root"},
        {"service_name": "gpu ci"},
        {"runner_home": "/opt/with space"},
        {"github_api_url": "https://api.github.com/"},
        {"runner_url": "https://example.com/other.tar.gz"},
        {"host_packages": ("jq; rm -rf /",)},
    ],
    ids=lambda v: next(iter(v)),
)
def test_bad_values_are_refused(values: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        runner(**values)


def test_shape_label() -> None:
    assert shape_runner_label("VM.GPU.A10.1") == "oracle-vm-gpu-a10-1"
    assert shape_runner_label("VM.GPU.A10.2") == "oracle-vm-gpu-a10-2"
    assert shape_runner_label("BM.GPU.H100.8", provider="oci") == "oci-bm-gpu-h100-8"
    assert runner(runner_labels=(shape_runner_label("VM.GPU.A10.1"),)).runner_labels == (
        "oracle-vm-gpu-a10-1",
    )
    with pytest.raises(ValueError, match="no usable runner label"):
        shape_runner_label("...")


def test_no_parameter_is_a_secret_and_the_key_is_never_rendered() -> None:
    for model in (GithubAppKeyParams, GithubRunnerParams, GithubRunnerRemoveParams):
        for name, field in model.model_fields.items():
            assert "Secret" not in repr(field.annotation), name
    script = render_script(Step.GITHUB_RUNNER, runner())
    assert "PRIVATE KEY-----" not in script
    assert "readonly KEY_FILE=/etc/gpu-ci/github-app/private-key.pem" in script
    assert "readonly GITHUB_SCOPE=orgs/acme" in script
    assert "readonly -a RUNNER_LABELS=(oracle-vm-gpu-a10-1)" in script


def test_loop_source_is_the_repository_file() -> None:
    assert base64.b64decode(runner().loop_source_b64) == LOOP.read_bytes()
    assert github_runner_loop_source() == LOOP.read_text()
    # ...so the step's script, and its trigger, change when the loop script changes.
    changed = base64.b64encode(LOOP.read_bytes() + b"# changed\n").decode()
    assert render_script(Step.GITHUB_RUNNER, runner()) != render_script(
        Step.GITHUB_RUNNER, runner(loop_source_b64=changed)
    )
    line = next(
        x
        for x in render_script(Step.GITHUB_RUNNER, runner()).splitlines()
        if x.startswith("readonly LOOP_SOURCE_B64=")
    )
    assert "'" not in line  # base64 needs no quoting


def test_loop_source_must_be_base64() -> None:
    with pytest.raises(ValidationError, match="loop_source_b64"):
        runner(loop_source_b64="echo $(id)")


def test_steps_are_registered_after_verify() -> None:
    steps = list(Step)
    assert steps[steps.index(Step.VERIFY) + 1 : steps.index(Step.GITHUB_RUNNER_REMOVE) + 1] == [
        Step.GITHUB_APP_KEY,
        Step.GITHUB_RUNNER,
        Step.GITHUB_RUNNER_REMOVE,
    ]
    assert PARAMS_BY_STEP[Step.GITHUB_APP_KEY] is GithubAppKeyParams
    assert PARAMS_BY_STEP[Step.GITHUB_RUNNER] is GithubRunnerParams
    assert PARAMS_BY_STEP[Step.GITHUB_RUNNER_REMOVE] is GithubRunnerRemoveParams
    for step in (Step.GITHUB_APP_KEY, Step.GITHUB_RUNNER, Step.GITHUB_RUNNER_REMOVE):
        assert script_source(str(step)).startswith("# shellcheck shell=bash\n")
