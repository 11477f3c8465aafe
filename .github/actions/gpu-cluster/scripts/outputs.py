"""The stack's outputs (`pulumi stack output --json --show-secrets` on stdin) as the step's.

The kubeconfig goes to `$GPU_CI_WORK/kubeconfig` (0600) and KUBECONFIG names it for the
job's later steps; it never reaches the log. The facts the cluster's stack exports
(`cluster`: name, node image, Kubernetes version, `facts`; `host`: what the verify step
saw, each GPU and the driver) become step outputs and a job-summary table, with every
version the set-up used (versions.json, from the offline plan).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import workflow_commands
from workflow_commands import file_command

STEP = "up"


def die(cause: str) -> NoReturn:
    workflow_commands.die(cause, STEP)


def append(variable: str, text: str) -> None:
    target = os.environ.get(variable)
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(text)


def facts_of(outputs: dict[str, Any], versions: dict[str, Any]) -> dict[str, str]:
    cluster = outputs.get("cluster")
    if not isinstance(cluster, dict):
        die("the stack exports no `cluster` (was gpu-ci:cluster left out of stack-config?)")
    host = outputs.get("host")
    if not isinstance(host, dict):
        host = {}
    machines = host.get("hosts") or [{}]
    machine = machines[0] if isinstance(machines[0], dict) else {}
    gpus = machine.get("gpus") or []
    count = cluster.get("gpuCount")
    facts = dict(cluster.get("facts") or {})
    return {
        "cluster-name": str(cluster.get("name", "")),
        "node-image": str(cluster.get("nodeImage", "")),
        "kubernetes-version": str(cluster.get("kubernetesVersion", "")),
        "gpu-count": str(count if isinstance(count, int) else len(gpus)),
        "gpus": ", ".join(str(g.get("name", "")) for g in gpus),
        "driver-version": str(machine.get("driverVersion") or ""),
        "toolkit-version": str(versions.get("toolkit", "")),
        "facts": json.dumps(facts, sort_keys=True),
        "versions": json.dumps(versions, sort_keys=True),
    }


def summary(values: dict[str, str], versions: dict[str, Any]) -> str:
    rows = [
        ("cluster", f"`{values['cluster-name']}`: {values['gpu-count']} GPU ({values['gpus']})"),
        ("driver", values["driver-version"]),
        ("Kubernetes", f"{values['kubernetes-version']} (`{values['node-image']}`)"),
    ]
    for key in ("pulumi", "plugins", "driverPackage", "toolkit", "kind", "kubectl", "helm"):
        rows.append((key, str(versions.get(key, ""))))
    rows.append(
        ("nvkind", f"commit {versions.get('nvkind', '')}, built with Go {versions.get('go')}")
    )
    for release, chart in sorted((versions.get("charts") or {}).items()):
        rows.append((f"release {release}", chart))
    table = "".join(f"| {k} | {v} |\n" for k, v in rows)
    return f"### gpu-cluster: nvkind cluster ready\n\n| | |\n|---|---|\n{table}\n"


BANDWIDTH = "gpu-ci check nccl-all-reduce: busbw "
"""The NCCL check's log line (components/platform/checks/nccl_all_reduce.py, BANDWIDTH_PREFIX)."""


def bandwidth() -> None:
    """`outputs.py bandwidth`: the NCCL check's log on stdin; its bandwidth line becomes
    the `nccl-bandwidth` output and a row of the job summary."""
    for line in sys.stdin.read().splitlines():
        if line.startswith(BANDWIDTH):
            figure = line.removeprefix(BANDWIDTH)
            append("GITHUB_OUTPUT", file_command("nccl-bandwidth", figure.split(",")[0]))
            append("GITHUB_STEP_SUMMARY", f"| NCCL all-reduce | busbw {figure} |\n\n")
            workflow_commands.log(f"NCCL all-reduce: busbw {figure}", STEP)
            return
    die("the NCCL check's log has no bandwidth line")


def main() -> None:
    if sys.argv[1:] == ["bandwidth"]:
        bandwidth()
        return
    work = Path(os.environ["GPU_CI_WORK"])
    try:
        outputs = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        die(f"pulumi stack output --json printed no JSON ({err})")
    except RecursionError:
        die("pulumi stack output --json printed values nested too deep to read")
    if not isinstance(outputs, dict):
        die("pulumi stack output --json printed no object")
    kubeconfig = outputs.get("kubeconfig")
    if not isinstance(kubeconfig, str) or "clusters:" not in kubeconfig:
        die("the stack exports no kubeconfig")
    path = work / "kubeconfig"
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(kubeconfig if kubeconfig.endswith("\n") else kubeconfig + "\n")
    versions = json.loads((work / "versions.json").read_text())
    values = {"kubeconfig": str(path), **facts_of(outputs, versions)}
    public = {k: v for k, v in outputs.items() if k != "kubeconfig"}
    (work / "outputs.json").write_text(json.dumps(public, indent=2, sort_keys=True) + "\n")
    # A value with a line break (a GPU's name, say) in the heredoc form: never an output
    # or a variable of its own.
    append("GITHUB_OUTPUT", "".join(file_command(k, v) for k, v in values.items()))
    append("GITHUB_ENV", file_command("KUBECONFIG", str(path)))
    append("GITHUB_STEP_SUMMARY", summary(values, versions))
    shown = {k: v for k, v in values.items() if k not in ("versions",)}
    workflow_commands.log(f"cluster ready: {json.dumps(shown)}", STEP)


if __name__ == "__main__":
    main()
