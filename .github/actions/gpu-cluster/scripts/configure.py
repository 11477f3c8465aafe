"""Step configure: the action's inputs as a `local`-target stack file, planned offline.

Writes `Pulumi.<stack>.yaml` (host `target: local`, the nvkind cluster, the recipe's
platform) into the project, plans it with the program's own offline plan (`python -m
stacks plan`: every key validated, the recipe resolved, nothing created) and reads from
that plan what later steps need: the tools step's pins (the host-tools cache), the
cluster's name and node image, the plugins the stack uses, every version (outputs).

    configure.py              the inputs (INPUT_* variables) -> stack file, plan, plan.env
    configure.py phase NAME   rewrite the stack file for phase `cluster` (no platform) or
                              `full`, keeping what `pulumi stack init` added to it

Every failure prints `gpu-ci step configure: <cause>` and an `::error` annotation.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import yaml

STEP = "configure"
CRITERION = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:@-]*$")
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
KEPT_TOP_LEVEL = ("encryptionsalt", "secretsprovider", "encryptedkey")
"""What `pulumi stack init` adds to a stack file; a phase rewrite keeps it."""


def annotate(level: str, message: str) -> None:
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{level} title=gpu-ci step {STEP}::{escaped}", flush=True)


def die(cause: str) -> NoReturn:
    print(f"gpu-ci step {STEP}: {cause}", file=sys.stderr, flush=True)
    annotate("error", cause)
    sys.exit(1)


def log(message: str) -> None:
    print(f"gpu-ci step {STEP}: {message}", file=sys.stderr, flush=True)


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def flag(name: str, default: bool) -> bool:
    value = env(name, "true" if default else "false").lower()
    if value not in ("true", "false"):
        die(f"input {input_name(name)} must be true or false, not {value!r}")
    return value == "true"


def input_name(variable: str) -> str:
    return variable.removeprefix("INPUT_").lower().replace("_", "-")


def lines(name: str) -> list[str]:
    return [line.strip() for line in env(name).splitlines() if line.strip()]


def read_env_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def write_output(key: str, value: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{key}={value}\n")


# -- the stack config ----------------------------------------------------------------------
def host_arch() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
    if machine not in arch:
        die(f"this runner's CPU ({machine}) is neither amd64 nor arm64")
    return arch[machine]


def gpu_layout(text: str) -> Any:
    if text in ("all", "one-per-gpu"):
        return text
    try:
        layout = yaml.safe_load(text)
    except yaml.YAMLError:
        layout = None
    if not isinstance(layout, list):
        die(
            f"input gpus must be all, one-per-gpu or a list of GPU indexes per worker such "
            f"as [[0], [1]], not {text!r}"
        )
    return layout


def config_from_inputs() -> dict[str, Any]:
    """The stack config the inputs describe, as `gpu-ci:` keys (before stack-config)."""
    versions: dict[str, Any] = {}
    if env("INPUT_TOOLKIT_VERSION"):
        versions["toolkit"] = env("INPUT_TOOLKIT_VERSION")
    if env("INPUT_DRIVER_BRANCH"):
        versions["driverBranch"] = env("INPUT_DRIVER_BRANCH")
    if env("INPUT_NVKIND_COMMIT"):
        versions["nvkind"] = {
            "commit": env("INPUT_NVKIND_COMMIT"),
            "commitDate": env("INPUT_NVKIND_COMMIT_DATE") or None,
        }
    host: dict[str, Any] = {"target": "local", "arch": host_arch(), "cdi": flag("INPUT_CDI", False)}
    if versions:
        host["versions"] = versions
    if env("INPUT_GPU_COUNT"):
        count = env("INPUT_GPU_COUNT")
        if not count.isdigit() or int(count) < 1:
            die(f"input gpu-count must be a positive number, not {count!r}")
        host["gpus"] = int(count)
    cluster: dict[str, Any] = {
        "name": env("INPUT_CLUSTER_NAME", "kind"),
        "gpus": gpu_layout(env("INPUT_GPUS", "all")),
        # The job's own steps are the only clients: the API server stays off the runner's
        # public address (kind's own default; gpu-ci's is 0.0.0.0, for remote deployers).
        "apiServerAddress": "127.0.0.1",
    }
    if env("INPUT_NODE_IMAGE"):
        cluster["nodeImage"] = env("INPUT_NODE_IMAGE")
    config: dict[str, Any] = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": host,
        "gpu-ci:cluster": cluster,
    }
    if flag("INPUT_DEPLOY_PLATFORM", True):
        criteria = {}
        for key in ("service", "accelerator", "intent", "platform", "os"):
            value = env(f"INPUT_{key.upper()}")
            if not value:
                continue
            if not CRITERION.match(value):
                die(f"input {key} {value!r} is not a recipe criterion (lowercase, e.g. kind)")
            criteria[key] = value
        config["gpu-ci:platform"] = {**criteria, "set": lines("INPUT_PLATFORM_SET")}
    observability = flag("INPUT_OBSERVABILITY", False)
    if observability and "gpu-ci:platform" not in config:
        die("input observability: true watches the platform's GPUs; it needs deploy-platform: true")
    # Off unless asked: gpu-ci's default (on where a stack deploys onto a cluster) is for
    # long-lived clusters; a job's cluster is gone before a dashboard would show anything.
    config["gpu-ci:observability"] = {"enabled": observability}
    return config


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


def stack_config_file() -> dict[str, Any]:
    """The `config:` of the stack-config input (a path in the workspace), or nothing."""
    given = env("INPUT_STACK_CONFIG")
    if not given:
        return {}
    path = Path(given)
    if not path.is_absolute():
        path = Path(env("GITHUB_WORKSPACE", ".")) / path
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as err:
        die(f"stack-config {given}: cannot read it ({err.strerror})")
    except yaml.YAMLError as err:
        die(f"stack-config {given}: not YAML ({err})")
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        die(f"stack-config {given}: expected a stack file with a `config:` map")
    config: dict[str, Any] = data["config"]
    if has_secure(config):
        die(
            f"stack-config {given}: has a `secure:` value; the action's stack is local and "
            "its passphrase is made per job, so it holds no secrets: leave secrets out"
        )
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


def build_config() -> dict[str, Any]:
    config: dict[str, Any] = merge(config_from_inputs(), nest(stack_config_file()))
    if config.get("gpu-ci:capacity") != "none":
        die("stack-config sets gpu-ci:capacity; the action builds none (it runs on this runner)")
    host = config.get("gpu-ci:host")
    if not isinstance(host, dict) or host.get("target") != "local":
        die("stack-config sets gpu-ci:host.target; the action bootstraps this runner: target local")
    return config


def write_stack_file(path: Path, stack: str, config: dict[str, Any], *, phase: str) -> None:
    kept: dict[str, Any] = {}
    if path.is_file():
        old = yaml.safe_load(path.read_text()) or {}
        kept = {k: old[k] for k in KEPT_TOP_LEVEL if k in old}
    if phase == "cluster":
        config = {k: v for k, v in config.items() if k != "gpu-ci:platform"}
    header = (
        "# Written by the gpu-cluster action (.github/actions/gpu-cluster) from its inputs;\n"
        f"# phase: {phase}. Plan it offline: python -m stacks plan {stack}\n"
    )
    body = yaml.safe_dump({"config": config, **kept}, sort_keys=False, default_flow_style=False)
    path.write_text(header + body)


# -- the offline plan ----------------------------------------------------------------------
def plan(program: Path, project: Path, stack: str, out: Path) -> dict[str, Any]:
    done = subprocess.run(
        [*PLAN, stack, "--project-dir", str(project), "--json", str(out), "--quiet"],
        cwd=program,
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stdout.write(done.stdout)
    problems = []
    for line in done.stderr.splitlines():
        print(line, file=sys.stderr)
        if line.startswith("warning: "):
            annotate("warning", line.removeprefix("warning: "))
        elif line.startswith(("error: ", "  - ")):
            problems.append(line.removeprefix("error: "))
    if done.returncode != 0:
        die("the stack the inputs make does not plan: " + ("\n".join(problems) or done.stderr))
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


# -- the steps -----------------------------------------------------------------------------
def configure(work: Path) -> None:
    paths = read_env_file(work / "env")
    program, project = Path(paths["GPU_CI_PROGRAM"]), Path(paths["GPU_CI_PROJECT"])
    stack = paths["GPU_CI_STACK"]
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", env("INPUT_PULUMI_VERSION")):
        die(f"input pulumi-version must be X.Y.Z, not {env('INPUT_PULUMI_VERSION')!r}")
    digest = env("INPUT_PULUMI_SHA256")
    if digest and not re.fullmatch(r"[0-9a-f]{64}", digest):
        die("input pulumi-sha256 must be 64 lowercase hex characters (or empty)")
    images = lines("INPUT_LOAD_IMAGES")
    for image in images:
        if not IMAGE.match(image):
            die(f"input load-images: {image!r} is not an image reference")
    config = build_config()
    if images and "gpu-ci:platform" not in config:
        log("load-images without a platform: the images are loaded after the cluster")
    (work / "stack.json").write_text(json.dumps(config, indent=2) + "\n")
    stack_file = project / f"Pulumi.{stack}.yaml"
    stack_file.unlink(missing_ok=True)  # a previous job's salt would not match this state
    write_stack_file(stack_file, stack, config, phase="full")
    log(f"wrote {stack_file}")
    snapshot = plan(program, project, stack, work / "plan.json")
    facts = facts_of(snapshot, program)
    facts["GPU_CI_IMAGES"] = " ".join(images)
    facts["GPU_CI_PLATFORM"] = "true" if "gpu-ci:platform" in config else "false"
    (work / "plan.env").write_text(
        "# Read from the offline plan by the configure step.\n"
        + "".join(f"{k}={v}\n" for k, v in facts.items())
    )
    versions = versions_of(snapshot, facts)
    (work / "versions.json").write_text(json.dumps(versions, indent=2) + "\n")
    count = len([r for r in snapshot["resources"] if r.get("custom")])
    log(f"the stack plans: {count} resources; versions {json.dumps(versions)}")
    write_output("tools-key", tools_key(facts, host_arch()))
    write_output("stack-file", str(stack_file))


def phase(work: Path, name: str) -> None:
    if name not in ("cluster", "full"):
        die(f"unknown phase {name!r} (cluster or full)")
    paths = read_env_file(work / "env")
    stack_file = Path(paths["GPU_CI_PROJECT"]) / f"Pulumi.{paths['GPU_CI_STACK']}.yaml"
    config = json.loads((work / "stack.json").read_text())
    write_stack_file(stack_file, paths["GPU_CI_STACK"], config, phase=name)


def main(argv: list[str]) -> None:
    work = Path(env("GPU_CI_WORK"))
    if not (work / "env").is_file():
        die(f"{work}/env is missing: the action's prepare step has not run")
    if argv[:1] == ["phase"] and len(argv) == 2:
        phase(work, argv[1])
    elif not argv:
        configure(work)
    else:
        die(f"usage: configure.py [phase cluster|full], not {' '.join(argv)}")


if __name__ == "__main__":
    main(sys.argv[1:])
