"""The cluster's side of the bundle: the platform's namespaces, nodes, the failed checks.

Which namespaces: every one the stack deploys into, from the offline plan the action
made (each `kubernetes:*` resource's namespace, Namespace and Release alike), from the
stack's `platform` export (each release's namespace) and, live, every namespace carrying
the label all of gpu-ci's objects carry (components/base.py MANAGED_LABELS); a host with
none of the first two (a self-managed one) still finds them by the label. The check Jobs
are found by their label (components/platform/checks/jobs.py CHECK_LABEL) in every
namespace; their pods by the label the Job controller sets on them (`batch.kubernetes.io/
job-name`, k8s.io/api batch/v1 JobNameLabel). tests/action keeps these names equal to the
program's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from collect_run import FAILED, SKIPPED, Runner, parsed

CHECK_LABEL = "gpu-ci/check"
MANAGED_LABEL = "app.kubernetes.io/managed-by=gpu-ci"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
GPU = "nvidia.com/gpu"
# A failed operation's report line of `chainsaw test --quiet` (kyverno/chainsaw v0.2.15
# pkg/runner/sink.go: `| TIME | TEST | STEP | OPERATION | STATUS | ...`, then `=== ERROR`
# and the error), as the pinned binary prints it (tests/action/collect/test_collect_summary.py).
_REPORT = re.compile(r"\|\s*[\d:]{8}\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|\s*([A-Z]+)\s*\|\s*(\w+)\s*\|")


@dataclass(frozen=True)
class Failure:
    """One failure found, for SUMMARY.md: its kind, what it says, the file to read."""

    kind: str
    text: str
    path: str


@dataclass
class Findings:
    namespaces: dict[str, str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    images: dict[str, str] = field(default_factory=dict)
    """Each image a pod of those namespaces names -> the imageID it runs."""


def plan_namespaces(plan: Any) -> dict[str, str]:
    """Namespace -> why, from the offline plan's resources."""
    found: dict[str, str] = {}
    for resource in plan.get("resources", []) if isinstance(plan, dict) else []:
        kind, inputs = resource.get("type", ""), resource.get("inputs") or {}
        if not kind.startswith("kubernetes:") or not isinstance(inputs, dict):
            continue
        meta: Any = inputs.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        if kind == "kubernetes:core/v1:Namespace":
            name = meta.get("name")
        elif kind == "kubernetes:helm.sh/v3:Release":
            name = inputs.get("namespace")
        else:
            name = meta.get("namespace")
        if isinstance(name, str) and name:
            found.setdefault(name, f"the plan: {resource.get('name', kind)}")
    return found


def output_namespaces(outputs: Any) -> dict[str, str]:
    """Namespace -> why, from the stack's `platform` and `observability` exports."""
    found: dict[str, str] = {}
    if not isinstance(outputs, dict):
        return found
    platform: Any = outputs.get("platform")
    releases: Any = platform.get("releases") if isinstance(platform, dict) else None
    for name, release in (releases if isinstance(releases, dict) else {}).items():
        if isinstance(release, dict) and isinstance(release.get("namespace"), str):
            found.setdefault(release["namespace"], f"the stack's platform export: {name}")
    observability = outputs.get("observability")
    if isinstance(observability, dict) and isinstance(observability.get("namespace"), str):
        found.setdefault(observability["namespace"], "the stack's observability export")
    return found


def _items(answer: Any) -> list[dict[str, Any]]:
    items = answer.get("items") if isinstance(answer, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _meta(obj: dict[str, Any], key: str) -> str:
    value = (obj.get("metadata") or {}).get(key)
    return str(value) if value is not None else ""


class Cluster:
    """kubectl (with KUBECONFIG in the runner's environment) against the cluster."""

    def __init__(self, runner: Runner, kubectl: str) -> None:
        self.runner = runner
        self.kubectl = [kubectl, "--request-timeout=30s"]

    def get(self, name: str, *args: str) -> Any:
        """A JSON answer (kept in scratch, never shipped); None when it failed or is not JSON."""
        done = self.runner.run(name, [*self.kubectl, *args])
        answer = parsed(done)
        if done.ok and answer is None:
            self.runner.note(name, FAILED, "", "the answer is not JSON")
        return answer

    def collect(self, known: dict[str, str]) -> Findings:
        findings = Findings(dict(known))
        live = self.get(
            "managed namespaces", "get", "namespaces", "-l", MANAGED_LABEL, "-o", "json"
        )
        for item in _items(live):
            findings.namespaces.setdefault(_meta(item, "name"), f"label {MANAGED_LABEL}")
        listing = "".join(f"{n}\t{why}\n" for n, why in sorted(findings.namespaces.items()))
        (self.runner.ship / "cluster").mkdir(parents=True, exist_ok=True)
        (self.runner.ship / "cluster" / "namespaces.txt").write_text(listing, encoding="utf-8")
        self.nodes()
        pods: list[dict[str, Any]] = []
        for ns in sorted(findings.namespaces):
            pods += self.namespace(ns)
        findings.failures += self.checks()
        findings.failures += pod_failures(pods)
        findings.images = images_of(pods)
        return findings

    def nodes(self) -> None:
        answer = self.get("nodes", "get", "nodes", "-o", "json")
        rows = ["node\tready\tallocatable nvidia.com/gpu\tcapacity nvidia.com/gpu\tgpu product"]
        for node in _items(answer):
            status = node.get("status") or {}
            ready = next(
                (
                    c.get("status")
                    for c in status.get("conditions") or []
                    if c.get("type") == "Ready"
                ),
                "?",
            )
            labels = (node.get("metadata") or {}).get("labels") or {}
            rows.append(
                f"{_meta(node, 'name')}\t{ready}\t{(status.get('allocatable') or {}).get(GPU, 0)}"
                f"\t{(status.get('capacity') or {}).get(GPU, 0)}"
                f"\t{labels.get('nvidia.com/gpu.product', '')}"
            )
        if answer is not None:
            text = "\n".join(rows) + "\n"
            (self.runner.ship / "cluster" / "nodes-gpus.txt").write_text(text, encoding="utf-8")
        self.runner.run("describe nodes", [*self.kubectl, "describe", "nodes"], "cluster/nodes.txt")

    def namespace(self, ns: str) -> list[dict[str, Any]]:
        base = f"cluster/{ns}"
        run, k = self.runner.run, self.kubectl
        run(
            f"events {ns}",
            [*k, "get", "events", "-n", ns, "--sort-by=.lastTimestamp"],
            f"{base}/events.txt",
        )
        run(f"pods {ns}", [*k, "get", "pods", "-n", ns, "-o", "wide"], f"{base}/pods.txt")
        run(f"describe pods {ns}", [*k, "describe", "pods", "-n", ns], f"{base}/describe.txt")
        return _items(self.get(f"pods {ns} (JSON)", "get", "pods", "-n", ns, "-o", "json"))

    def checks(self) -> list[Failure]:
        """Each failed check Job: its description and its pods' logs under checks/; the
        first to fail (by its Failed condition's time) first."""
        answer = self.get("check Jobs", "get", "jobs", "-A", "-l", CHECK_LABEL, "-o", "json")
        failed = sorted(
            ((job, why) for job in _items(answer) if (why := job_failure(job)) is not None),
            key=lambda pair: (pair[1][2], _meta(pair[0], "name")),
        )
        found = []
        for job, (reason, message, _) in failed:
            ns, name = _meta(job, "namespace"), _meta(job, "name")
            check = ((job.get("metadata") or {}).get("labels") or {}).get(CHECK_LABEL, name)
            self.runner.run(
                f"describe Job {name}",
                [*self.kubectl, "describe", "job", "-n", ns, name],
                f"checks/{name}-describe.txt",
            )
            step, rel = self.job_logs(ns, name)
            text = f"check {check} (Job {ns}/{name}) failed: {reason}"
            text += f" ({message})" if message else ""
            found.append(Failure("check Job", f"{text}; {step}" if step else text, rel))
        return found

    def job_logs(self, ns: str, job: str) -> tuple[str, str]:
        """The failing step the Job's pod names (in its log, else its termination message)
        and the log's file; ("", ...) when no pod is left."""
        pods = _items(
            self.get(
                f"pods of Job {job}",
                "get",
                "pods",
                "-n",
                ns,
                "-l",
                f"{JOB_NAME_LABEL}={job}",
                "-o",
                "json",
            )
        )
        if not pods:
            self.runner.note(f"logs of Job {job}", SKIPPED, "", "no pod of the Job is left")
            return "", f"checks/{job}-describe.txt"
        pod = _meta(pods[0], "name")
        rel = f"checks/{job}.log"
        done = self.runner.run(
            f"logs of Job {job}", [*self.kubectl, "logs", "-n", ns, pod, "--all-containers"], rel
        )
        text = done.text() if done.ok else ""
        for status in (pods[0].get("status") or {}).get("containerStatuses") or []:
            terminated = (status.get("state") or {}).get("terminated") or {}
            text = text or str(terminated.get("message") or "")
        return failing_step(text), rel


def images_of(pods: list[dict[str, Any]]) -> dict[str, str]:
    found = {}
    for pod in pods:
        spec = {
            c.get("name"): c.get("image") for c in (pod.get("spec") or {}).get("containers") or []
        }
        for status in (pod.get("status") or {}).get("containerStatuses") or []:
            image, ran = spec.get(status.get("name")), status.get("imageID")
            if isinstance(image, str) and isinstance(ran, str) and ran:
                found[image] = ran
    return found


def job_failure(job: dict[str, Any]) -> tuple[str, str, str] | None:
    """(reason, message, when) of a Job that failed; None for one that did not."""
    status = job.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            when = str(condition.get("lastTransitionTime") or "")
            return (
                str(condition.get("reason") or "Failed"),
                str(condition.get("message") or ""),
                when,
            )
    if status.get("failed"):
        return "Failed", f"{status['failed']} pod(s) failed", _meta(job, "creationTimestamp")
    return None


def failing_step(log: str) -> str:
    """Chainsaw's first failed operation (`Test T, step S (ASSERT): error`), else the last
    line saying FAILED (the GPU checks' own), else the log's last line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        match = _REPORT.search(line)
        if match and match.group(4) == "ERROR":
            test, step, operation = match.group(1), match.group(2), match.group(3)
            error = []
            for after in lines[i + 1 :]:
                if _REPORT.search(after) or after.startswith(("---", "FAIL")):
                    break
                if after.strip() and after.strip() != "=== ERROR":
                    error.append(after.strip())
            return f"Test {test}, step {step} ({operation}): {' '.join(error)[:500]}"
    said = [line.strip() for line in lines if "FAILED" in line]
    rest = [line.strip() for line in lines if line.strip()]
    return (said or rest or [""])[-1][:500]


def pod_failures(pods: list[dict[str, Any]]) -> list[Failure]:
    """Each pod not Running (or Running with a container not ready) and not Succeeded,
    oldest first, with its reason."""
    found = []
    for pod in sorted(pods, key=lambda p: (_meta(p, "creationTimestamp"), _meta(p, "name"))):
        reason = pod_problem(pod)
        if reason:
            ns, name = _meta(pod, "namespace"), _meta(pod, "name")
            found.append(Failure("pod", f"pod {ns}/{name}: {reason}", f"cluster/{ns}/describe.txt"))
    return found


def pod_problem(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    phase = str(status.get("phase") or "Unknown")
    if phase == "Succeeded":
        return ""
    containers = [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]
    for container in containers:
        state = container.get("state") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated") or {}
        if waiting.get("reason"):
            said = f": {waiting['message']}" if waiting.get("message") else ""
            return f"{phase}, container {container.get('name')} {waiting['reason']}{said}"
        if terminated and terminated.get("exitCode") not in (0, None):
            return (
                f"{phase}, container {container.get('name')} terminated "
                f"({terminated.get('reason', 'Error')}, exit {terminated.get('exitCode')})"
            )
    if phase == "Running":
        main = status.get("containerStatuses") or []
        unready = [str(c.get("name")) for c in main if c.get("ready") is False]
        return f"Running, container {', '.join(unready)} not ready" if unready else ""
    for condition in status.get("conditions") or []:
        if condition.get("status") == "False" and condition.get("reason"):
            return f"{phase}, {condition['reason']}: {condition.get('message', '')}".rstrip(": ")
    said = f": {status['message']}" if status.get("message") else ""
    return f"{phase}{', ' + str(status['reason']) if status.get('reason') else ''}{said}"
