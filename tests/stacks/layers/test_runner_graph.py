"""The runner after the host: App key on stdin as a secret, service install and removal."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from tests.stacks.stack_helpers import run_stack, vm_stack

REMOTE = "command:remote:Command"
APP_KEY_BODY = "MIIEowIBAAKCAQEAgpuciTESTKEYdoNotUseAnywhere0123456789abcdefghij"
APP_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{APP_KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"


def runner_stack(**runner: Any) -> dict[str, Any]:
    return vm_stack(
        **{
            "gpu-ci:host": {"target": "oci-vm"},
            "gpu-ci:runner": {
                "url": "https://github.com/kubeflow",
                "group": "GPUs",
                "githubApp": {"appId": 1234567, "installationId": 7654321, "privateKey": APP_KEY},
                **runner,
            },
        }
    )


@pytest.fixture(scope="module")
def run() -> ProgramRun:
    return run_stack(runner_stack(), secret_keys=["gpu-ci:runner"])


def test_runner_waits_for_the_verified_host(run: ProgramRun) -> None:
    key = run.one(REMOTE, "host-0-runner-github-app-key")
    service = run.one(REMOTE, "host-0-runner-github-runner")
    assert run.one(REMOTE, "host-0-verify").urn in key.dependencies
    assert key.urn in service.dependencies
    assert run.one("gpu-ci:host:GithubRunner").parent == run.one("gpu-ci:host:GpuHost").parent


def test_the_app_key_travels_only_as_a_secret_stdin(run: ProgramRun) -> None:
    key = run.one(REMOTE, "host-0-runner-github-app-key")
    assert isinstance(key.inputs["stdin"], Secret)
    assert reveal(key.inputs["stdin"]) == APP_KEY
    assert key.inputs["create"].startswith("bash -c ")
    assert "PRIVATE KEY-----\n" not in key.inputs["create"]
    assert {"stdin", "stdout"} <= set(key.options["additionalSecretOutputs"])
    assert key.inputs["logging"] == "stderr"
    assert "rm -f /etc/gpu-ci/github-app/private-key.pem" in key.inputs["delete"]


def test_the_app_key_is_nowhere_in_plain_text(run: ProgramRun) -> None:
    everything = dumps(snapshot_of(run)) + json.dumps(run.logs) + repr(run.exports)
    for registration in run.registrations:
        everything += json.dumps(registration.inputs, default=repr)
    assert APP_KEY_BODY not in everything
    assert base64.b64encode(APP_KEY.encode()).decode()[:40] not in everything


def test_runner_service_is_pinned_labelled_and_removed_first_on_replace(run: ProgramRun) -> None:
    service = run.one(REMOTE, "host-0-runner-github-runner")
    script = service.inputs["stdin"]
    assert "readonly GITHUB_SCOPE=orgs/kubeflow" in script
    assert "readonly -a RUNNER_LABELS=(oracle-vm-gpu-a10-1)" in script
    assert "readonly RUNNER_GROUP=GPUs" in script
    assert "readonly RUNNER_NAME=gpu-ci-test-gpu-0" in script
    assert "readonly EPHEMERAL=true" in script
    assert "readonly RUNNER_VERSION=2.337.0" in script
    assert "actions-runner-linux-x64-2.337.0.tar.gz" in script
    assert "PRIVATE KEY-----\n" not in script
    assert service.options["deleteBeforeReplace"] is True
    assert "GPU_CI_STEP=github-runner-remove" in service.inputs["delete"]


def test_explicit_labels_and_persistent_runners() -> None:
    run = run_stack(
        runner_stack(labels=["gpu", "a10"], ephemeral=False, allowJobsToReadRunnerCredential=True),
        secret_keys=["gpu-ci:runner"],
    )
    script = run.one(REMOTE, "host-0-runner-github-runner").inputs["stdin"]
    assert "readonly -a RUNNER_LABELS=(gpu a10)" in script
    assert "readonly EPHEMERAL=false" in script


def test_a_toolkit_pin_change_leaves_the_runner_alone_and_a_key_rotation_updates_the_key() -> None:
    def runner_inputs(config: dict[str, Any]) -> dict[str, Any]:
        done = run_stack(config, secret_keys=["gpu-ci:runner"])
        return {r.name: reveal(r.inputs) for r in done.by_type(REMOTE) if "-runner-" in r.name}

    base = runner_inputs(runner_stack())
    pinned = runner_inputs(
        {**runner_stack(), "gpu-ci:host": {"target": "oci-vm", "versions": {"toolkit": "1.17.0-1"}}}
    )
    assert pinned == base  # not even an update: the registration is untouched
    rotated_key = APP_KEY.replace("TESTKEY", "NEWKEY0")
    rotated = runner_inputs(
        runner_stack(
            githubApp={"appId": 1234567, "installationId": 7654321, "privateKey": rotated_key}
        )
    )
    key, runner = "host-0-runner-github-app-key", "host-0-runner-github-runner"
    assert rotated[runner] == base[runner]
    assert rotated[key]["triggers"] == base[key]["triggers"]  # an update, in place
    assert rotated[key]["stdin"] != base[key]["stdin"]


def test_runner_outputs_name_the_runners() -> None:
    run = run_stack(runner_stack(), secret_keys=["gpu-ci:runner"], preview=False)
    host = run.exports["host"]
    assert host["runners"] == [{"name": "gpu-ci-test-gpu-0", "labels": ["oracle-vm-gpu-a10-1"]}]


def test_an_upstream_rerun_updates_the_runner_in_place_and_never_drops_its_key(
    run: ProgramRun,
) -> None:
    # Any change but a new machine's is an update, which runs `update` (the idempotent
    # install) in place instead of deregistering the runner; only a new machine (the
    # triggers) replaces them, and then the old one goes first, so the key file written by
    # a replacement is never removed by the resource it replaced.
    key = run.one(REMOTE, "host-0-runner-github-app-key")
    service = run.one(REMOTE, "host-0-runner-github-runner")
    assert key.inputs["update"] == key.inputs["create"]
    assert service.inputs["update"] == service.inputs["create"]
    assert key.options["deleteBeforeReplace"] is True
