"""The host parameter builders and checks, exactly: each architecture's pinned URLs, the
overrides a cluster's follow-up steps take, every refusal's whole text and the label
limits (mutation-testing survivors of components/host/params/{bootstrap,cluster,runner}.py)."""

from __future__ import annotations

import pytest

from components.host.params.bootstrap import ToolsParams
from components.host.params.cluster import ClusterKubeconfigParams, NvkindClusterDeleteParams
from components.host.params.runner import (
    GithubRunnerParams,
    check_runner_group,
    check_runner_labels,
    github_scope,
    shape_runner_label,
)
from components.pins import PINS, Arch
from tests.components.host.test_shellcheck import NVKIND

SHA = "a" * 64


def refusal(check: object, value: object) -> str:
    assert callable(check)
    with pytest.raises(ValueError) as refused:
        check(value)
    return str(refused.value)


@pytest.mark.parametrize("arch", ["amd64", "arm64"])
def test_each_tool_is_the_pinned_download_for_the_architecture(arch: Arch) -> None:
    tools = ToolsParams.from_pins(arch=arch)
    for name in ("go", "kind", "kubectl", "helm"):
        pin = getattr(PINS, name)
        assert getattr(tools, f"{name}_url") == pin.url(arch), name
        assert getattr(tools, f"{name}_sha256") == pin.checksum(arch), name
    runner = GithubRunnerParams.from_pins(
        arch=arch,
        github_url="https://github.com/kubeflow",
        runner_name="gpu-ci",
        runner_labels=("gpu",),
        app_id=1,
        installation_id=2,
    )
    assert (runner.runner_url, runner.runner_sha256) == (
        PINS.runner.url(arch),
        PINS.runner.checksum(arch),
    )


def test_a_prebuilt_nvkind_is_its_url_and_checksum() -> None:
    url = "https://example.com/nvkind-linux-amd64"
    tools = ToolsParams.from_pins(nvkind_binary=(url, SHA))
    assert (tools.nvkind_source, tools.nvkind_url, tools.nvkind_sha256) == ("binary", url, SHA)


def test_a_clusters_follow_up_steps_take_its_port_and_the_overrides() -> None:
    cluster = NVKIND.model_copy(update={"api_server_port": 7443})
    kubeconfig = ClusterKubeconfigParams.for_cluster(cluster, use_sudo=False)
    assert (kubeconfig.api_server_port, kubeconfig.use_sudo) == (7443, False)
    assert ClusterKubeconfigParams.for_cluster(cluster).use_sudo is True
    assert NvkindClusterDeleteParams.for_cluster(cluster, use_sudo=False).use_sudo is False


def test_refusals_say_what_is_allowed_and_how_to_fix_it() -> None:
    assert refusal(check_runner_group, " GPUs") == (
        "a runner group name here is 1 to 100 letters, digits, spaces, '.', '_' or '-', not "
        "starting with a space (it is written into the runner's config on the host); use the "
        "group's name without quotes, `$`, `(` or line breaks, or 'Default'"
    )
    assert refusal(check_runner_labels, ()) == (
        "0 labels: a runner takes 1 to 100 labels; list only those jobs select runners by"
    )
    assert refusal(check_runner_labels, ("gpu", "a b")) == (
        "label 1 ('a b') may hold only letters, digits, '.', '_' and '-'; remove the line "
        "break, space or other character"
    )
    assert refusal(github_scope, "https://github.com/") == (
        "github_url 'https://github.com/' is not https://HOST/ORG, https://HOST/ORG/REPO or "
        "https://HOST/enterprises/ENTERPRISE"
    )


def test_a_label_is_text_of_up_to_100_characters() -> None:
    assert check_runner_labels(["a" * 100]) == ("a" * 100,)
    too_long = "label 0 is not a label of up to 100 characters"
    assert refusal(check_runner_labels, ["a" * 101]) == too_long
    assert refusal(check_runner_labels, [5]) == too_long


def test_a_shape_label_has_no_dash_at_its_end() -> None:
    assert shape_runner_label("VM.GPU.A10.1.") == "oracle-vm-gpu-a10-1"
