"""The GPU set-up's critical path: Kubeflow Trainer's script against the gpu-cluster action.

Offline, it counts what a GPU runner does: the steps on the longest chain of waits, the
downloads (and which a second run takes from the action's caches), the bounded waits.

- The script: `hack/e2e-setup-cluster.sh` with CLUSTER_TYPE=gpu (FIELD-NOTES §1, the
  nine steps; kubeflow/trainer), as the table below transcribes it. Each line runs after
  the previous one; nothing is kept between jobs.
- The action: the stack its configure step writes for the default inputs, planned by the
  program's offline plan (`python -m stacks plan`, through the action's own
  scripts/configure.py), plus the steps action.yml runs around `pulumi up`. The chain is
  the plan's dependency graph; downloads are read from the plan (tool URLs, charts, images)
  and requirements.txt (wheels, plugins); what is cached is what action.yml's two
  actions/cache entries hold.

Images the charts pull in the cluster are the same for both and not counted. Also timed
(median of --runs): the configure step (write + offline plan), the action's only compute.

    .venv/bin/python bench/setup_critical_path.py [--runs N] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CONFIGURE = REPO / ".github" / "actions" / "gpu-cluster" / "scripts" / "configure.py"
STACK = "gpu-cluster-kind"


@dataclass(frozen=True)
class Wait:
    what: str
    bound_s: int | None  # None: unbounded


@dataclass(frozen=True)
class SeedStep:
    number: str
    what: str
    downloads: tuple[str, ...]
    waits: tuple[Wait, ...]


# hack/e2e-setup-cluster.sh, CLUSTER_TYPE=gpu (FIELD-NOTES §1). The tools it calls (nvkind
# at /root/go/bin, helm, kubectl, jq, nvidia-ctk) come with the runner image, unpinned.
SEED: tuple[SeedStep, ...] = (
    SeedStep("1", "nvidia-ctk config --set accept-...-volume-mounts=true", (), ()),
    SeedStep(
        "2",
        "nvidia-ctk runtime configure --set-as-default; systemctl restart docker",
        (),
        (Wait("docker restart (always)", None),),
    ),
    SeedStep(
        "3",
        "nvkind cluster create --image kindest/node:v1.33.1; print-gpus; copy kubeconfig",
        ("kindest/node:v1.33.1 (by tag)", "the toolkit inside the worker (nvkind, apt)"),
        (),
    ),
    SeedStep("4", "kubectl create ns gpu-operator; label privileged", (), ()),
    SeedStep("5", "kubectl create -f hack/gpu-time-slicing.yml", (), ()),
    SeedStep(
        "6",
        "helm repo add/update; helm install gpu-operator v25.3.2 --wait; patch "
        "ClusterPolicy; kubectl wait each operator pod",
        ("helm repo index (helm.ngc.nvidia.com)", "gpu-operator chart v25.3.2"),
        (
            Wait("helm install --wait (helm's default timeout)", 300),
            Wait("kubectl wait --for=condition=Ready, once per operator pod, in turn", 180),
        ),
    ),
    SeedStep(
        "7",
        "docker build 5 images, docker pull the JAX image, kind load all 6; "
        "kubectl apply -k Trainer; wait",
        (),  # the job's own images: built or pulled by the example too, counted for neither
        (
            Wait("kubectl wait deploy/kubeflow-trainer-controller-manager", 300),
            Wait("kubectl wait pods --all -n kubeflow-system", 300),
        ),
    ),
    SeedStep(
        "8", "kubectl get clustertrainingruntimes, jq runtimeClassName, kubectl apply", (), ()
    ),
    SeedStep(
        "9", "kubectl get clustertrainingruntimes, jq a /dev/shm volume, kubectl apply", (), ()
    ),
)

# What action.yml runs around `pulumi up`, in order, and what each downloads.
ACTION_STEPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("setup-python (PATH untouched)", (("the Python interpreter", "runner"),)),
    ("prepare", ()),
    ("restore the virtualenv (actions/cache)", ()),
    ("python-env", (("{wheels} wheels of requirements.txt (pip, hash-checked)", "venv"),)),
    ("configure: write the stack, plan it offline", ()),
    ("restore the CLI, plugins, host tools (actions/cache)", ()),
    (
        "install",
        (
            ("pulumi-VERSION-checksums.txt (none with pulumi-sha256)", "none"),
            ("the Pulumi CLI tarball (SHA-256 checked)", "tools"),
            ("{plugins}", "tools"),
        ),
    ),
    ("up: pulumi up (the plan's chain below)", ()),
)


def plan_of_the_action(temp: Path) -> dict[str, Any]:
    """configure.py's stack for the default inputs, planned in $RUNNER_TEMP/gpu-ci/NAME."""
    work = temp / "gpu-ci" / "kind"
    work.mkdir(parents=True)
    project = temp / "project"
    project.mkdir()
    shutil.copy(REPO / "Pulumi.yaml", project / "Pulumi.yaml")
    (work / "env").write_text(
        f"GPU_CI_STACK={STACK}\nGPU_CI_PROGRAM={REPO}\nGPU_CI_PROJECT={project}\n"
    )
    inputs = {
        "INPUT_CLUSTER_NAME": "kind",
        "INPUT_SERVICE": "kind",
        "INPUT_ACCELERATOR": "a10",
        "INPUT_INTENT": "training",
        "INPUT_PLATFORM": "kubeflow",
        "INPUT_PULUMI_VERSION": "3.272.0",
    }
    env = {**os.environ, **inputs, "GPU_CI_WORK": str(work), "RUNNER_TEMP": str(temp)}
    env["GITHUB_OUTPUT"] = os.devnull
    subprocess.run(
        [sys.executable, str(CONFIGURE)], env=env, check=True, capture_output=True, cwd=work
    )
    plan: dict[str, Any] = json.loads((work / "plan.json").read_text())
    return plan


def critical_path(plan: dict[str, Any]) -> list[str]:
    """The longest chain of custom resources, each waiting for the one before it.

    A dependency on a component is one on every resource under it; a resource also waits
    for what the components around it wait for, and for its provider."""
    by_urn = {r["urn"]: r for r in plan["resources"]}
    children: dict[str, list[str]] = {}
    for r in plan["resources"]:
        if r.get("parent"):
            children.setdefault(r["parent"], []).append(r["urn"])

    def customs(urn: str) -> set[str]:
        r = by_urn.get(urn)
        if r is None:
            return set()
        found = {urn} if r["custom"] else set()
        for child in children.get(urn, []):
            found |= customs(child)
        return found

    def waits(urn: str) -> set[str]:
        found: set[str] = set()
        r: dict[str, Any] | None = by_urn[urn]
        while r is not None:
            provider = (r.get("options") or {}).get("provider") or ""
            for dep in [*r["dependencies"], provider.split("::id", 1)[0]]:
                found |= customs(dep)
            r = by_urn.get(r.get("parent") or "")
        return found - {urn}

    memo: dict[str, list[str]] = {}

    def longest(urn: str) -> list[str]:
        if urn not in memo:
            before = [longest(dep) for dep in sorted(waits(urn))]
            memo[urn] = [*max(before, key=len, default=[]), urn]
        return memo[urn]

    chains = [longest(r["urn"]) for r in plan["resources"] if r["custom"]]
    best = max(chains, key=len)
    return [by_urn[u]["name"] for u in best]


def step_params(plan: dict[str, Any], name: str) -> dict[str, str]:
    script = next(r["inputs"].get("stdin", "") for r in plan["resources"] if r["name"] == name)
    found = re.findall(r"^readonly ([A-Z_0-9]+)=([^'\n(][^\n]*)$", script, re.MULTILINE)
    return dict(found)


def plan_downloads(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(step, download, cache) for what the plan's steps fetch outside the cluster."""
    tools = step_params(plan, "host-tools")
    toolkit = step_params(plan, "host-container-toolkit")
    verify = step_params(plan, "host-verify")
    cluster = step_params(plan, "cluster-nvkind-cluster")
    rows = [
        (
            "host-container-toolkit",
            f"4 toolkit packages {toolkit['TOOLKIT_VERSION']} (apt; none when the image has them)",
            "none",
        ),
        ("host-tools", f"kind {tools['KIND_URL'].rsplit('/', 2)[-2]} (SHA-256)", "tools"),
        ("host-tools", f"kubectl {tools['KUBECTL_URL'].split('/')[4]} (SHA-256)", "tools"),
        ("host-tools", tools["HELM_URL"].rsplit("/", 1)[-1] + " (SHA-256)", "tools"),
        ("host-tools", tools["GO_URL"].rsplit("/", 1)[-1] + " (SHA-256), to build nvkind", "tools"),
        ("host-tools", f"nvkind {tools['NVKIND_COMMIT']}'s Go modules (go.sum)", "tools"),
        ("host-verify", f"{verify['VERIFY_IMAGE']} (docker run --gpus all)", "none"),
        ("cluster-nvkind-cluster", cluster["NODE_IMAGE"].split("@")[0] + " (by digest)", "none"),
        ("cluster-nvkind-cluster", "the toolkit inside the worker (nvkind, apt)", "none"),
    ]
    for r in plan["resources"]:
        if r["type"] == "kubernetes:helm.sh/v3:Release":
            inputs = r["inputs"]
            repo = inputs.get("repositoryOpts", {}).get("repo")
            if repo:
                rows.append((r["name"], f"helm repo index ({repo.split('/')[2]})", "none"))
            rows.append(
                (
                    r["name"],
                    f"chart {inputs['chart'].rsplit('/', 1)[-1]} {inputs['version']}",
                    "none",
                )
            )
    return rows


def plan_waits(plan: dict[str, Any], chain: list[str]) -> list[tuple[str, Wait]]:
    by_name = {r["name"]: r for r in plan["resources"]}
    found = []
    for name in chain:
        r = by_name[name]
        inputs = r["inputs"]
        if name == "host-toolkit-config":
            found.append((name, Wait("docker restart (only when a config file changed)", None)))
        elif name == "cluster-cluster-ready":
            p = step_params(plan, name)
            bound = int(p["TIMEOUT_SECONDS"])
            found.append((name, Wait(f"nodes Ready with GPUs, every {p['POLL_SECONDS']} s", bound)))
        elif r["type"] == "kubernetes:helm.sh/v3:Release":
            found.append((name, Wait("helm release ready (and its hook jobs)", inputs["timeout"])))
        elif r["type"] == "kubernetes:batch/v1:Job":
            found.append(
                (name, Wait("smoke Job completes", inputs["spec"]["activeDeadlineSeconds"]))
            )
    return found


def time_configure(runs: int) -> float:
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            plan_of_the_action(Path(tmp))
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def wheel_count() -> int:
    return len(re.findall(r"^[A-Za-z0-9][\w.-]*==", (REPO / "requirements.txt").read_text(), re.M))


def plugin_names(plan: dict[str, Any]) -> str:
    kinds = {r["type"] for r in plan["resources"]}
    names = sorted(
        {k.split(":")[0] for k in kinds if not k.startswith(("gpu-ci:", "pulumi:"))}
        | {k.rsplit(":", 1)[1] for k in kinds if k.startswith("pulumi:providers:")}
    )
    return f"{len(names)} provider plugins ({', '.join(names)})"


def waits_text(waits: list[Wait]) -> str:
    return "; ".join(f"{w.what} ({w.bound_s} s)" if w.bound_s else w.what for w in waits)


def report(runs: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        plan = plan_of_the_action(Path(tmp))
    chain = critical_path(plan)
    action_dl = [
        (step, what.format(wheels=wheel_count(), plugins=plugin_names(plan)), cache)
        for step, items in ACTION_STEPS
        for what, cache in items
    ]
    all_dl = action_dl + plan_downloads(plan)
    again = [d for d in all_dl if d[2] in ("none", "runner")]
    avoidable = [d for d in again if "checksums" in d[1] or "toolkit packages" in d[1]]
    waits = plan_waits(plan, chain)
    seed_dl = [d for step in SEED for d in step.downloads]
    seed_waits = [w for step in SEED for w in step.waits]
    customs = sum(1 for r in plan["resources"] if r["custom"])
    configure_s = time_configure(runs)

    out = [
        "| | Trainer's script | gpu-cluster action |",
        "|---|---|---|",
        f"| steps, one after another | {len(SEED)} | {len(ACTION_STEPS)} action steps, then "
        f"{len(chain)} of the stack's {customs} resources (its longest chain) |",
        f"| downloads of the set-up, 1st run | {len(seed_dl)} | {len(all_dl)} |",
        f"| downloads of the set-up, 2nd run | {len(seed_dl)} (nothing kept) | {len(again)} "
        f"({len(again) - len(avoidable)} with pulumi-sha256 and the image's toolkit) |",
        "| tools it needs on the image, unpinned | nvkind, helm, kubectl, jq, nvidia-ctk | "
        "none (Docker and the driver, as both) |",
        f"| blocking waits | {len(seed_waits)} kinds: {waits_text(seed_waits)} | {len(waits)}: "
        f"{waits_text([w for _, w in waits])} |",
        "",
        f"The action's configure step (write the stack, plan it offline): {configure_s:.2f} s "
        f"(median of {runs}).",
        "",
        "Longest chain of the plan: " + " → ".join(chain),
        "",
        "| action download | by | 2nd run |",
        "|---|---|---|",
    ]
    labels = {
        "none": "again",
        "runner": "again (setup-python's download)",
        "venv": "cached (virtualenv)",
        "tools": "cached (CLI, plugins, tools)",
    }
    out += [f"| {what} | {step} | {labels[cache]} |" for step, what, cache in all_dl]
    out += ["", "| script step | downloads | waits |", "|---|---|---|"]
    for step in SEED:
        downloads = "; ".join(step.downloads) or "-"
        out.append(
            f"| {step.number}. {step.what} | {downloads} | {waits_text(list(step.waits)) or '-'} |"
        )
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="configure timings (median)")
    args = parser.parse_args()
    sys.stdout.write(report(max(1, args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
