"""The stack file the action writes: the inputs' config with the workflow's stack-config
file merged over it (checked to keep what the action needs), as `Pulumi.<stack>.yaml`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from careful_yaml import GpuCiError, read_stack_file, workspace_file
from given_inputs import InputProblem, env, given

NAMESPACE = "gpu-ci"
STACK_CONFIG = "stack-config"
KEPT_TOP_LEVEL = ("encryptionsalt", "secretsprovider", "encryptedkey")
"""What `pulumi stack init` adds to a stack file; a phase rewrite keeps it."""


def merge(base: Any, extra: Any) -> Any:
    """`extra` over `base`: maps key by key, anything else replaced (lists too)."""
    if isinstance(base, dict) and isinstance(extra, dict):
        merged = dict(base)
        for key, value in extra.items():
            merged[key] = merge(base.get(key), value)
        return merged
    return extra


def has_secure(value: Any) -> bool:
    if isinstance(value, dict):
        return "secure" in value or any(has_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(has_secure(v) for v in value)
    return False


def stack_config_file(problems: list[InputProblem]) -> dict[str, Any]:
    """The `config:` of the stack-config input (a path in the workspace), or nothing: read
    only inside the workspace, and as carefully as the program reads a stack file."""
    given_path = env("INPUT_STACK_CONFIG")
    if not given_path:
        return {}
    source = (given(STACK_CONFIG),)
    try:
        workspace = env("GITHUB_WORKSPACE")
        data = read_stack_file(workspace_file(given_path, workspace), Path(workspace).resolve())
    except GpuCiError as err:
        problems.append(InputProblem(source, str(err)))
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        problems.append(InputProblem(source, "expected a stack file with a `config:` map"))
        return {}
    config: dict[str, Any] = data["config"]
    if has_secure(config):
        problems.append(
            InputProblem(
                source,
                "has a `secure:` value; the action's stack is local and its passphrase is "
                "made per job, so it holds no secrets: leave secrets out",
            )
        )
        return {}
    return config


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Pulumi's `gpu-ci:host.cdi: true` spelling as `gpu-ci:host: {cdi: true}`."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if ":" not in key:
            nested[key] = value
            continue
        namespace, _, path = key.partition(":")
        top, *rest = path.split(".")
        tree = value
        for part in reversed(rest):
            tree = {part: tree}
        nested = merge(nested, {f"{namespace}:{top}": tree})
    return nested


def build_config(
    from_inputs: dict[str, Any], from_file: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Any]:
    """The inputs' config with stack-config's merged over it (which keeps what the action
    needs: no machine of its own, this runner as the host)."""
    config: dict[str, Any] = merge(from_inputs, from_file)
    source = (given(STACK_CONFIG),)
    if config.get(f"{NAMESPACE}:capacity") != "none":
        problems.append(
            InputProblem(
                source,
                f"sets {NAMESPACE}:capacity; the action creates no machine (it runs on this "
                "runner): remove it",
            )
        )
    host = config.get(f"{NAMESPACE}:host")
    if not isinstance(host, dict) or host.get("target") != "local":
        problems.append(
            InputProblem(
                source,
                f"sets {NAMESPACE}:host.target; the action bootstraps this runner (target "
                "local): remove it",
            )
        )
    return config


def write_stack_file(path: Path, stack: str, config: dict[str, Any], *, phase: str) -> None:
    kept: dict[str, Any] = {}
    if path.is_file():
        old = read_stack_file(path)
        if isinstance(old, dict):
            kept = {k: old[k] for k in KEPT_TOP_LEVEL if k in old}
    if phase == "cluster":
        config = {k: v for k, v in config.items() if k != f"{NAMESPACE}:platform"}
    header = (
        "# Written by the gpu-cluster action (.github/actions/gpu-cluster) from its inputs;\n"
        f"# phase: {phase}. Plan it offline: python -m stacks plan {stack}\n"
    )
    body = yaml.safe_dump({"config": config, **kept}, sort_keys=False, default_flow_style=False)
    path.write_text(header + body)
