"""The inputs read and checked, as the stack config they describe (`gpu-ci:` keys, before
the stack-config file), and the inputs of the tools (pulumi-version, load-images)."""

from __future__ import annotations

import platform
import re
from typing import Any

from careful_yaml import GpuCiError, read_input
from given_inputs import InputProblem, env, given, input_variable, lines
from stack_file import NAMESPACE
from workflow_commands import die

CRITERION = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
CLUSTER_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?")
"""A kind cluster name as the action takes it (lib.sh's CLUSTER_NAME: a folder's name)."""
IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:@-]*$")


def positive(text: str) -> bool:
    """ASCII digits only, at least 1: `str.isdigit()` also takes "²", which `int()` refuses."""
    return text.isascii() and text.isdigit() and int(text) >= 1


def host_arch() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
    if machine not in arch:
        die(f"this runner's CPU ({machine}) is neither amd64 nor arm64")
    return arch[machine]


def flag(name: str, default: bool, problems: list[InputProblem]) -> bool:
    value = env(input_variable(name), "true" if default else "false").lower()
    if value not in ("true", "false"):
        problems.append(InputProblem((given(name),), "must be true or false"))
        return default
    return value == "true"


def gpu_layout(text: str, problems: list[InputProblem]) -> Any:
    if text in ("all", "one-per-gpu"):
        return text
    shape = "must be all, one-per-gpu or a list of GPU indexes per worker such as [[0], [1]]"
    try:
        layout = read_input(text, "gpus")
    except GpuCiError as err:  # not YAML, or past its bounds (an alias bomb, deep nesting)
        problems.append(InputProblem((given("gpus"),), f"{shape} ({err})"))
        return "all"
    if not isinstance(layout, list):
        problems.append(InputProblem((given("gpus"),), shape))
        return "all"
    return layout


def nvkind_pin(problems: list[InputProblem]) -> dict[str, Any] | None:
    """nvkind-commit and its date, both or neither."""
    commit, date = env("INPUT_NVKIND_COMMIT"), env("INPUT_NVKIND_COMMIT_DATE")
    if commit and not date:
        problems.append(
            InputProblem(
                (given("nvkind-commit-date"),),
                f"is needed with nvkind-commit '{commit}': the commit's date, YYYY-MM-DD "
                "(`git log -1 --format=%cs COMMIT` in an nvkind clone), which the toolkit x "
                "nvkind x CDI rules order commits by",
            )
        )
    if date and not commit:
        problems.append(
            InputProblem(
                (given("nvkind-commit-date"),),
                "dates nvkind-commit, which is empty: give the commit too, or leave both "
                "empty for gpu-ci's pinned nvkind",
            )
        )
    return {"commit": commit, "commitDate": date} if commit and date else None


def host_from_inputs(problems: list[InputProblem]) -> dict[str, Any]:
    """`gpu-ci:host`: this runner (target local), its versions and GPU count."""
    versions: dict[str, Any] = {}
    if env("INPUT_TOOLKIT_VERSION"):
        versions["toolkit"] = env("INPUT_TOOLKIT_VERSION")
    if env("INPUT_DRIVER_BRANCH"):
        versions["driverBranch"] = env("INPUT_DRIVER_BRANCH")
    nvkind = nvkind_pin(problems)
    if nvkind:
        versions["nvkind"] = nvkind
    host: dict[str, Any] = {
        "target": "local",
        "arch": host_arch(),
        "cdi": flag("cdi", False, problems),
    }
    if versions:
        host["versions"] = versions
    if env("INPUT_GPU_COUNT"):
        count = env("INPUT_GPU_COUNT")
        if not positive(count):
            problems.append(InputProblem((given("gpu-count"),), "must be a positive number"))
        else:
            host["gpus"] = int(count)
    return host


def platform_from_inputs(problems: list[InputProblem]) -> dict[str, Any] | None:
    """`gpu-ci:platform`: the recipe's criteria and overrides (None: deploy-platform false)."""
    if not flag("deploy-platform", True, problems):
        if lines("INPUT_PLATFORM_SET"):
            problems.append(
                InputProblem(
                    (given("platform-set"), given("deploy-platform")),
                    "platform-set overrides the platform's components, and deploy-platform: "
                    "false deploys none; drop platform-set, or deploy the platform",
                )
            )
        return None
    criteria = {}
    for key in ("service", "accelerator", "intent", "platform", "os"):
        value = env(input_variable(key))
        if not value:
            continue
        if not CRITERION.match(value):
            problems.append(
                InputProblem((given(key),), "is not a recipe criterion (lowercase, e.g. kind)")
            )
        criteria[key] = value
    return {**criteria, "set": lines("INPUT_PLATFORM_SET")}


def config_from_inputs(problems: list[InputProblem]) -> dict[str, Any]:
    """The stack config the inputs describe, as `gpu-ci:` keys (before stack-config);
    INPUT_KEYS and ACTION_KEYS name who sets each key. A bad input is added to `problems`."""
    name = env("INPUT_CLUSTER_NAME", "kind")
    if not CLUSTER_NAME.fullmatch(name):
        problems.append(
            InputProblem(
                (given("cluster-name"),),
                "is not a kind cluster name (lowercase letters, digits and '-', at most 32)",
            )
        )
    cluster: dict[str, Any] = {
        "name": name,
        "gpus": gpu_layout(env("INPUT_GPUS", "all"), problems),
        # The job's own steps are the only clients: the API server stays off the runner's
        # public address (kind's own default; gpu-ci's is 0.0.0.0, for remote deployers).
        "apiServerAddress": "127.0.0.1",
    }
    if env("INPUT_NODE_IMAGE"):
        cluster["nodeImage"] = env("INPUT_NODE_IMAGE")
    if env("INPUT_EXPECT_GPUS"):  # the GPU checks (docs/multi-gpu.md)
        expect = env("INPUT_EXPECT_GPUS")
        if not positive(expect):
            problems.append(InputProblem((given("expect-gpus"),), "must be a positive number"))
        else:
            cluster["expectGpus"] = int(expect)
    config: dict[str, Any] = {
        f"{NAMESPACE}:capacity": "none",
        f"{NAMESPACE}:host": host_from_inputs(problems),
        f"{NAMESPACE}:cluster": cluster,
    }
    platform_config = platform_from_inputs(problems)
    if platform_config is not None:
        config[f"{NAMESPACE}:platform"] = platform_config
    observability = flag("observability", False, problems)
    if observability and platform_config is None:
        problems.append(
            InputProblem(
                (given("observability"), given("deploy-platform")),
                "observability: true watches the platform's GPUs; it needs deploy-platform: true",
            )
        )
    # Off unless asked: gpu-ci's default (on where a stack deploys onto a cluster) is for
    # long-lived clusters; a job's cluster is gone before a dashboard would show anything.
    config[f"{NAMESPACE}:observability"] = {"enabled": observability}
    return config


def tool_inputs(problems: list[InputProblem]) -> list[str]:
    """pulumi-version, pulumi-sha256 and load-images checked; the images, one a line."""
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", env("INPUT_PULUMI_VERSION")):
        problems.append(InputProblem((given("pulumi-version"),), "must be X.Y.Z"))
    digest = env("INPUT_PULUMI_SHA256")
    if digest and not re.fullmatch(r"[0-9a-f]{64}", digest):
        problems.append(
            InputProblem(
                (given("pulumi-sha256"),), "must be 64 lowercase hex characters (or empty)"
            )
        )
    images = lines("INPUT_LOAD_IMAGES")
    for index, image in enumerate(images):
        if not IMAGE.match(image):
            problems.append(
                InputProblem((given("load-images", index),), "is not an image reference")
            )
    return images
