"""The program's offline plan of the stack file (`python -m stacks plan`), its warnings
and problems told in the inputs' words, and what later steps read from it (plan.env)."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from given_inputs import env, fail
from input_origins import Origins
from workflow_commands import annotate, die, untrusted

TOOLS_PARAMS = (
    "BINDIR",
    "STATEDIR",
    "KIND_URL",
    "KIND_SHA256",
    "KUBECTL_URL",
    "KUBECTL_SHA256",
    "HELM_URL",
    "HELM_SHA256",
    "HELM_ARCHIVE_MEMBER",
    "NVKIND_SOURCE",
    "NVKIND_SHA256",
    "NVKIND_COMMIT",
    "GO_URL",
    "GO_SHA256",
)
"""The tools step's parameters the host-tools cache keys and checks its files by."""
PLAN = (sys.executable, "-m", "stacks", "plan")


def plan(program: Path, project: Path, stack: str, out: Path, origins: Origins) -> dict[str, Any]:
    """The offline plan's snapshot; its warnings and problems, in the inputs' words, once."""
    done = subprocess.run(
        [*PLAN, stack, "--project-dir", str(project), "--json", str(out), "--quiet"],
        cwd=program,
        capture_output=True,
        text=True,
        check=False,
    )
    error: list[str] = []  # the `error: ` line and all after it: the CLI stops there
    relayed: list[str] = []  # the rest: it may repeat values of the inputs, so as text only
    for line in done.stderr.splitlines():
        if error or line.startswith("error: "):
            error.append(line.removeprefix("error: ") if not error else line)
        elif line.startswith("warning: "):
            warning = origins.warning(line.removeprefix("warning: "))
            annotate("warning", warning.text, warning.title)
        else:
            relayed.append(line)
    untrusted(done.stdout + "".join(f"{line}\n" for line in relayed))
    if done.returncode != 0:
        fail(origins.problems_in(error, stack))
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def readonly_params(script: str) -> dict[str, str]:
    """The `readonly NAME=VALUE` parameters at the top of a rendered host step."""
    params: dict[str, str] = {}
    for line in script.splitlines():
        match = re.match(r"^readonly ([A-Z_][A-Z0-9_]*)=(.*)$", line)
        if match and not match.group(2).startswith(("(", '"$')):
            try:
                words = shlex.split(match.group(2))
            except ValueError:
                continue
            params[match.group(1)] = words[0] if words else ""
    return params


def version_in(url: str) -> str:
    match = re.search(r"[0-9]+\.[0-9]+\.[0-9]+", url)
    return match.group(0) if match else ""


def requirement_pins(requirements: Path) -> dict[str, str]:
    """`name==version` lines (a hashed lock file's too: `name==version \\`, then hashes)."""
    pins = {}
    for line in requirements.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)", line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(3)
    return pins


def facts_of(snapshot: dict[str, Any], program: Path) -> dict[str, str]:
    """What later steps read from the plan, as GPU_CI_* lines of plan.env."""
    by_name = {r["name"]: r for r in snapshot["resources"]}
    steps = {
        name: readonly_params(r["inputs"].get("stdin", ""))
        for name, r in by_name.items()
        if r["type"] == "command:local:Command"
    }
    tools = steps.get("host-tools")
    cluster = steps.get("cluster-nvkind-cluster")
    if tools is None or cluster is None:
        die("the plan has no host-tools or cluster-nvkind-cluster step")
    facts = {f"GPU_CI_TOOLS_{key}": tools.get(key, "") for key in TOOLS_PARAMS}
    facts["GPU_CI_KIND_CLUSTER"] = cluster["CLUSTER_NAME"]
    facts["GPU_CI_NODE_IMAGE"] = cluster["NODE_IMAGE"]
    facts["GPU_CI_USE_SUDO"] = cluster.get("USE_SUDO", "true")
    provider = by_name.get("cluster-k8s")
    facts["GPU_CI_K8S_PROVIDER_URN"] = provider["urn"] if provider else ""
    packages = set()
    for resource in snapshot["resources"]:
        kind = resource["type"]
        if kind.startswith("pulumi:providers:"):
            packages.add(kind.removeprefix("pulumi:providers:"))
        elif not kind.startswith(("gpu-ci:", "pulumi:")):
            packages.add(kind.split(":")[0])
    pins = requirement_pins(program / "requirements.txt")
    plugins = []
    for package in sorted(packages):
        version = pins.get(f"pulumi-{package}")
        if version is None:
            die(f"the plan uses provider {package}, which requirements.txt does not pin")
        plugins.append(f"{package}@{version}")
    facts["GPU_CI_PLUGINS"] = " ".join(plugins)
    return facts


def versions_of(snapshot: dict[str, Any], facts: dict[str, str]) -> dict[str, Any]:
    by_name = {r["name"]: r for r in snapshot["resources"]}
    steps = {
        name: readonly_params(r["inputs"].get("stdin", ""))
        for name, r in by_name.items()
        if r["type"] == "command:local:Command"
    }
    toolkit = steps.get("host-container-toolkit", {})
    driver = steps.get("host-nvidia-driver", {})
    cluster = snapshot["outputs"].get("cluster", {})
    charts = {
        r["inputs"].get("name", r["name"]): f"{r['inputs']['chart']} {r['inputs']['version']}"
        for r in snapshot["resources"]
        if r["type"] == "kubernetes:helm.sh/v3:Release"
    }
    return {
        "pulumi": env("INPUT_PULUMI_VERSION"),
        "plugins": facts["GPU_CI_PLUGINS"],
        "driverPackage": driver.get("DRIVER_PACKAGE", ""),
        "toolkit": toolkit.get("TOOLKIT_VERSION", ""),
        "kind": version_in(facts["GPU_CI_TOOLS_KIND_URL"]),
        "kubectl": version_in(facts["GPU_CI_TOOLS_KUBECTL_URL"]),
        "helm": version_in(facts["GPU_CI_TOOLS_HELM_URL"]),
        "go": version_in(facts["GPU_CI_TOOLS_GO_URL"]),
        "nvkind": facts["GPU_CI_TOOLS_NVKIND_COMMIT"] or facts["GPU_CI_TOOLS_NVKIND_SHA256"],
        "nodeImage": facts["GPU_CI_NODE_IMAGE"],
        "kubernetes": cluster.get("kubernetesVersion", "") if isinstance(cluster, dict) else "",
        "charts": charts,
    }


def tools_key(facts: dict[str, str], arch: str) -> str:
    """The host-tools cache key: every pin of what it holds (CLI, plugins, tools)."""
    pinned = {
        "pulumi": env("INPUT_PULUMI_VERSION"),
        "pulumiSha256": env("INPUT_PULUMI_SHA256"),
        "plugins": facts["GPU_CI_PLUGINS"],
        **{k: v for k, v in facts.items() if k.startswith("GPU_CI_TOOLS_") and "URL" not in k},
    }
    digest = hashlib.sha256(json.dumps(pinned, sort_keys=True).encode()).hexdigest()
    return f"gpu-ci-tools-v1-linux-{arch}-{digest[:40]}"
