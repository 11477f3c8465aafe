"""Which parameter model each host step takes, so the renderer refuses a mismatched pair."""

from __future__ import annotations

from components.host.params.bootstrap import (
    AuthorizedKeysParams,
    CloudInitParams,
    ContainerToolkitParams,
    DockerParams,
    InotifyParams,
    NvidiaDriverParams,
    ToolkitConfigParams,
    ToolsParams,
    VerifyParams,
)
from components.host.params.cluster import (
    ClusterKubeconfigParams,
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.runner import (
    GithubAppKeyParams,
    GithubRunnerParams,
    GithubRunnerRemoveParams,
)
from components.host.params.step import Step, StepParams

PARAMS_BY_STEP: dict[Step, type[StepParams]] = {
    Step.CLOUD_INIT: CloudInitParams,
    Step.AUTHORIZED_KEYS: AuthorizedKeysParams,
    Step.NVIDIA_DRIVER: NvidiaDriverParams,
    Step.DOCKER: DockerParams,
    Step.CONTAINER_TOOLKIT: ContainerToolkitParams,
    Step.TOOLKIT_CONFIG: ToolkitConfigParams,
    Step.INOTIFY: InotifyParams,
    Step.TOOLS: ToolsParams,
    Step.VERIFY: VerifyParams,
    Step.GITHUB_APP_KEY: GithubAppKeyParams,
    Step.GITHUB_RUNNER: GithubRunnerParams,
    Step.GITHUB_RUNNER_REMOVE: GithubRunnerRemoveParams,
    Step.NVKIND_CLUSTER: NvkindClusterParams,
    Step.CLUSTER_KUBECONFIG: ClusterKubeconfigParams,
    Step.CLUSTER_READY: ClusterReadyParams,
    Step.NVKIND_CLUSTER_DELETE: NvkindClusterDeleteParams,
}
