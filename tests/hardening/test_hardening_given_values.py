"""A problem shows the value given, unless it is a credential (issue #27, item 7).

`gpu-ci:runner.url: "https://github.com/kubeflow "` was reported `[given: [secret]]`,
hiding the trailing space that was the problem: Pulumi marks all of `gpu-ci:runner` secret
because its App key is (`secure:`), and every value under a secret top-level key was
masked. Now only a credential is: a value at a field typed `SecretStr` (or a key holding
one), or a whole top-level key stored as a secret. Anything else is shown as other
messages show it, quoted as Python's repr quotes it, whitespace visible.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from stacks.config import ConfigError, load_config, raw_from_flat
from stacks.config.problems import credential_at
from stacks.config.stack import StackConfig
from stacks.offline.plan import REPO
from tests.stacks.stack_helpers import cli, flat, vm_stack

URL_RULE = (
    "not a GitHub URL of a repository, organization or enterprise "
    "(https://github.com/ORG/REPO, https://github.com/ORG, https://github.com/enterprises/NAME)"
)
PEM_LIKE = "not-a-pem-but-a-secret"
APP = {"appId": 1234567, "installationId": 7654321, "privateKey": PEM_LIKE}


def problems(values: dict[str, Any], secret: set[str]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(raw_from_flat(flat(values), secret), "test")
    return [str(p) for p in caught.value.problems]


def runner_stack(**runner: Any) -> dict[str, Any]:
    return vm_stack(
        **{
            "gpu-ci:host": {"target": "oci-vm"},
            "gpu-ci:runner": {"url": "https://github.com/kubeflow", "githubApp": APP, **runner},
        }
    )


def test_the_dev_stack_shows_a_trailing_space_in_the_runner_url(tmp_path: Path) -> None:
    text = (REPO / "Pulumi.dev.yaml").read_text()
    assert text.count("    url: https://github.com/kubeflow\n") == 1
    text = text.replace(
        "    url: https://github.com/kubeflow\n", '    url: "https://github.com/kubeflow "\n'
    )
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.dev.yaml").write_text(text)
    done = cli("plan", "dev", "--project-dir", tmp_path)
    assert done.returncode == 2
    assert (
        f"  - gpu-ci:runner.url: {URL_RULE} [given: 'https://github.com/kubeflow ']\n"
    ) in done.stderr


def test_beside_a_credential_the_value_shows_and_the_credential_does_not() -> None:
    values = runner_stack(
        url="https://github.com/kubeflow\t",
        githubApp={**APP, "appId": "one", "privateKey": ["a", PEM_LIKE]},
    )
    found = problems(values, {"gpu-ci:runner"})
    assert found == [
        "gpu-ci:runner.githubApp.appId: Input should be a valid integer: write the number "
        "itself, unquoted (true, false and text are no numbers) [given: 'one']",
        "gpu-ci:runner.githubApp.privateKey: Input should be a valid string [given: [secret]]",
        f"gpu-ci:runner.url: {URL_RULE} [given: 'https://github.com/kubeflow\\t']",
    ]
    assert not any(PEM_LIKE in problem for problem in found)


def test_a_whole_secret_key_is_not_shown_and_a_value_under_one_is() -> None:
    values = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "ssh", "address": "gpu1.example.org\n", "user": "ci"},
        "gpu-ci:runner": "https://github.com/kubeflow ",  # the key's whole value, secure
    }
    assert problems(values, {"gpu-ci:host", "gpu-ci:runner"}) == [
        "gpu-ci:host.address: 'gpu1.example.org\\n' is not a host name or IP address "
        "[given: 'gpu1.example.org\\n']",
        "gpu-ci:runner: Input should be a valid dictionary or instance of RunnerConfig "
        "[given: [secret]]",
    ]


def test_a_key_holding_a_credential_is_not_shown_and_its_neighbour_is() -> None:
    values = runner_stack(url="https://github.com/kubeflow ", githubApp=f"{PEM_LIKE} ")
    assert problems(values, {"gpu-ci:runner"}) == [
        "gpu-ci:runner.githubApp: Input should be a valid dictionary or instance of "
        "GithubAppConfig [given: [secret]]",
        f"gpu-ci:runner.url: {URL_RULE} [given: 'https://github.com/kubeflow ']",
    ]


@pytest.mark.parametrize(
    ("key", "credential"),
    [
        ("gpu-ci:runner.url", False),
        ("gpu-ci:runner.githubApp", True),
        ("gpu-ci:runner.githubApp.privateKey", True),
        ("gpu-ci:runner.githubApp.appId", False),
        ("gpu-ci:runner.labels[0]", False),
        ("gpu-ci:runner", True),
        ("gpu-ci:arc.scaleSets[0].ociCredentials.user", True),
        ("gpu-ci:arc.scaleSets[0].name", False),
        ("gpu-ci:host.privateKey", True),
        ("gpu-ci:host.address", False),
        ("gpu-ci:runner.nothing", None),
        ("gpu-ci:owner.deeper", None),
    ],
)
def test_what_is_a_credential_is_its_fields_type(key: str, credential: bool | None) -> None:
    assert credential_at(StackConfig, key) is credential
