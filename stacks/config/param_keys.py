"""Where each field of the host, runner and cluster parameter models comes from in the
config: the key `prepare` (and the program's last resort) reports a refused value at."""

from __future__ import annotations

from pydantic import ValidationError

from stacks.config.param_problems import ParamKeys, param_problems
from stacks.config.problems import Problem
from stacks.config.stack import NAMESPACE

_VERSIONS = f"{NAMESPACE}:host.versions"
HOST_KEYS = ParamKeys(
    f"{NAMESPACE}:host",
    {
        "driver_package": f"{_VERSIONS}.driverBranch",
        "docker_user": f"{NAMESPACE}:host.dockerUser",
        "toolkit_version": f"{_VERSIONS}.toolkit",
        "cdi_enabled": f"{NAMESPACE}:host.cdi",
        "reboot": f"{NAMESPACE}:host.reboot",
        **{f"{tool}_url": f"{_VERSIONS}.{tool}" for tool in ("kind", "kubectl", "helm")},
        **{f"{tool}_sha256": f"{_VERSIONS}.{tool}.sha256" for tool in ("kind", "kubectl", "helm")},
        "helm_archive_member": f"{NAMESPACE}:host.arch",
        "nvkind_url": f"{_VERSIONS}.nvkind.binaryUrl",
        "nvkind_sha256": f"{_VERSIONS}.nvkind.binarySha256",
        "nvkind_commit": f"{_VERSIONS}.nvkind.commit",
        "ToolsParams.": f"{_VERSIONS}.nvkind",
        "expected_gpus": f"{NAMESPACE}:host.gpus",
    },
)
AUTHORIZED_KEYS = ParamKeys(
    f"{NAMESPACE}:vm.sshAuthorizedKeys",
    {"user": f"{NAMESPACE}:host.user", "keys": f"{NAMESPACE}:vm.sshAuthorizedKeys"},
)
RUNNER_KEYS = ParamKeys(
    f"{NAMESPACE}:runner",
    {
        "github_url": f"{NAMESPACE}:runner.url",
        "github_scope": f"{NAMESPACE}:runner.url",
        "app_id": f"{NAMESPACE}:runner.githubApp.appId",
        "installation_id": f"{NAMESPACE}:runner.githubApp.installationId",
        "runner_labels": f"{NAMESPACE}:runner.labels",
        "runner_group": f"{NAMESPACE}:runner.group",
        "ephemeral": f"{NAMESPACE}:runner.ephemeral",
        "job_root": f"{NAMESPACE}:runner.jobRoot",
    },
)
CLUSTER_KEYS = ParamKeys(
    f"{NAMESPACE}:cluster",
    {
        "cluster_name": f"{NAMESPACE}:cluster.name",
        "node_image": f"{NAMESPACE}:cluster.nodeImage",
        "api_server_port": f"{NAMESPACE}:cluster.apiServerPort",
        "expected_gpus": f"{NAMESPACE}:host.gpus",
    },
)
_MODELS = (
    (HOST_KEYS, "CloudInit NvidiaDriver Docker ContainerToolkit ToolkitConfig Inotify"),
    (HOST_KEYS, "Tools Verify"),
    (AUTHORIZED_KEYS, "AuthorizedKeys"),
    (RUNNER_KEYS, "GithubAppKey GithubApp GithubRunner GithubRunnerRemove"),
    (CLUSTER_KEYS, "NvkindCluster NvkindClusterDelete ClusterKubeconfig ClusterReady"),
)
MODEL_KEYS = {f"{name}Params": keys for keys, names in _MODELS for name in names.split()}
"""The config part each parameter model is built from, by model name."""


def unprepared_problems(error: ValidationError, secret_keys: frozenset[str]) -> list[Problem]:
    """A parameter model's refusal that `prepare` did not see, at the config part its
    model is built from (the program's last resort: no traceback, ever)."""
    keys = MODEL_KEYS.get(error.title)
    if keys is not None:
        return param_problems(error, keys, secret_keys)
    return [
        Problem(
            NAMESPACE,
            f"{error.title}.{'.'.join(str(part) for part in e['loc'])}: "
            + e["msg"].removeprefix("Value error, "),
        )
        for e in error.errors(include_url=False)
    ]
