"""The renderer: shebang first, literal parameter values, secrets refused."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest
from pydantic import SecretStr

from components.cluster.kind_config import render_kind_config
from components.host.params.bootstrap import (
    AuthorizedKeysParams,
    DockerParams,
    InotifyParams,
    ToolsParams,
    VerifyParams,
)
from components.host.params.by_step import PARAMS_BY_STEP
from components.host.params.cluster import (
    ClusterKubeconfigParams,
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.runner import GithubRunnerParams
from components.host.params.step import Step
from components.host.render import (
    SHEBANG,
    SecretInScriptError,
    library_source,
    render_script,
    script_functions,
    script_sha256,
    script_source,
)
from core.errors import GpuCiError
from tests.components.cluster.cluster_helpers import cluster_spec

SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f ci"


def default_params(step: Step) -> object:
    plain: dict[Step, Callable[[], object]] = {
        Step.TOOLS: ToolsParams.from_pins,
        Step.NVKIND_CLUSTER_DELETE: lambda: NvkindClusterDeleteParams(cluster_name="gpu-ci"),
        Step.CLUSTER_READY: lambda: ClusterReadyParams(
            kubeconfig_path="/var/lib/gpu-ci/nvkind/gpu-ci/kubeconfig"
        ),
        Step.CLUSTER_KUBECONFIG: lambda: ClusterKubeconfigParams(cluster_name="gpu-ci"),
        Step.AUTHORIZED_KEYS: lambda: AuthorizedKeysParams(user="ubuntu", keys=(SSH_KEY,)),
    }
    if step in plain:
        return plain[step]()
    if step is Step.GITHUB_RUNNER:
        return GithubRunnerParams.from_pins(
            github_url="https://github.com/acme",
            app_id=1,
            installation_id=2,
            runner_name="gpu-ci",
            runner_labels=("oracle-vm-gpu-a10-1",),
        )
    if step is Step.NVKIND_CLUSTER:
        spec = cluster_spec()
        return NvkindClusterParams(
            cluster_name=spec.name,
            kind_config=render_kind_config(spec, 1),
            node_image=spec.node_image,
        )
    return PARAMS_BY_STEP[step]()


@pytest.mark.parametrize("step", list(Step))
def test_shebang_is_line_one_and_script_is_self_contained(step: Step) -> None:
    params = default_params(step)
    assert isinstance(params, PARAMS_BY_STEP[step])
    script = render_script(step, params)
    assert script.splitlines()[0] == SHEBANG
    assert script.count("#!") == 1
    assert f"readonly GPU_CI_STEP={step}" in script
    # lib and body are inlined, not sourced.
    assert "set -Eeuo pipefail" in script
    assert "source " not in script
    assert script_source(str(step)).split("\n", 1)[1].strip()[:40] in script


def test_lib_inlines_each_function_it_shares_with_the_action_once() -> None:
    """common.sh (which the gpu-cluster action sources) reaches the steps whole: each of
    its functions stands once in the library every step inlines, and no `# @inline` line."""
    library = library_source()
    shared = script_functions("common")
    assert list(shared) == ["log", "as_root", "backoff", "fetch", "sha256_of"]
    for name, text in shared.items():
        assert library.count(f"\n{name}() {{\n") == 1, name
        assert text in library
    assert "# @inline" not in library
    assert set(script_functions("lib")).isdisjoint(shared)


def test_parameters_come_before_lib_and_body() -> None:
    script = render_script(Step.INOTIFY, InotifyParams(max_user_instances=1024))
    assert script.index("readonly MAX_USER_INSTANCES=1024") < script.index("set -Eeuo pipefail")
    assert script.index("set -Eeuo pipefail") < script.index("apply fs.inotify")


def test_hostile_string_stays_literal() -> None:
    hostile = 'it\'s $(touch /tmp/pwned) `id` "quoted" $HOME; rm -rf /'
    params = VerifyParams.model_construct(verify_image=hostile)
    script = render_script(Step.VERIFY, params)
    line = next(x for x in script.splitlines() if x.startswith("readonly VERIFY_IMAGE="))
    out = subprocess.run(
        ["bash", "-c", f'{line}\nprintf "%s" "$VERIFY_IMAGE"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == hostile


def test_tuple_renders_as_readonly_array() -> None:
    params = DockerParams(docker_packages=("docker-ce", "a b"))
    script = render_script(Step.DOCKER, params)
    line = next(x for x in script.splitlines() if "DOCKER_PACKAGES=" in x)
    assert line.startswith("readonly -a DOCKER_PACKAGES=(")
    out = subprocess.run(
        ["bash", "-c", f'{line}\nprintf "<%s>" "${{DOCKER_PACKAGES[@]}}"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "<docker-ce><a b>"


def test_bool_and_int_render_as_shell_words() -> None:
    script = render_script(Step.INOTIFY, InotifyParams(max_user_watches=600000))
    assert "readonly MAX_USER_WATCHES=600000" in script
    script = render_script(Step.DOCKER, DockerParams())
    assert "readonly DOCKER_USER=''" in script


class LeakyDocker(DockerParams):
    github_app_key: SecretStr


class MaybeLeaky(DockerParams):
    token: SecretStr | None = None


def test_secret_field_is_refused() -> None:
    params = LeakyDocker(github_app_key=SecretStr("-----BEGIN RSA PRIVATE KEY-----"))
    with pytest.raises(SecretInScriptError, match="github_app_key"):
        render_script(Step.DOCKER, params)


def test_optional_secret_field_is_refused_even_when_unset() -> None:
    with pytest.raises(SecretInScriptError, match="token"):
        render_script(Step.DOCKER, MaybeLeaky())
    assert issubclass(SecretInScriptError, GpuCiError)


def test_wrong_params_model_for_step() -> None:
    with pytest.raises(TypeError, match="DockerParams"):
        render_script(Step.DOCKER, VerifyParams())


def test_hash_changes_with_parameters() -> None:
    a = render_script(Step.INOTIFY, InotifyParams())
    b = render_script(Step.INOTIFY, InotifyParams(max_user_instances=1024))
    assert script_sha256(a) == script_sha256(render_script(Step.INOTIFY, InotifyParams()))
    assert script_sha256(a) != script_sha256(b)
    assert len(script_sha256(a)) == 64


def test_models_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="max_user_instances"):
        InotifyParams(max_user_instances=128)
    with pytest.raises(ValueError, match="root"):
        DockerParams(root="relative/path")
    with pytest.raises(ValueError, match="nvkind_source=binary"):
        ToolsParams.from_pins(nvkind_source="binary")
