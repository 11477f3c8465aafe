"""The collect step's stand-ins on the action sandbox's PATH, and a cluster for them to tell.

`collect_stub.bash` answers kubectl, kind, helm, nvidia-smi, docker, journalctl and dmesg
from files (one per exact call), fails or hangs on demand; `CollectRig` writes those
files: a one-GPU kind cluster whose platform namespaces are the ones the action's offline
plan names, a failed check Job, a pod in CrashLoopBackOff, host files under the sandbox's
root. Everything else the step runs (sudo, chown, dpkg-query) is the host sandbox's stub.
"""

from __future__ import annotations

import json
import re
import sys
import tarfile
from pathlib import Path
from typing import Any

from ..action_sandbox import ActionSandbox

STUB = Path(__file__).with_name("collect_stub.bash")
STAND_INS = ("kubectl", "kind", "helm", "nvidia-smi", "docker", "journalctl", "dmesg")
KUBECTL = "kubectl --request-timeout=30s"
CHECKS = "gpu-ci-checks"
NODE_IMAGE = "kindest/node:v1.35.0@sha256:" + "4" * 64


def key(call: str) -> str:
    """The stub's file name for a call (`tr -c 'A-Za-z0-9.=-' '_'`)."""
    return re.sub(r"[^A-Za-z0-9.=-]", "_", call)


def items(*objects: dict[str, Any]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)})


def pod(ns: str, name: str, created: str, phase: str, **status: Any) -> dict[str, Any]:
    return {
        "metadata": {"namespace": ns, "name": name, "creationTimestamp": created},
        "spec": {"containers": [{"name": "main", "image": f"example/{name}:1"}]},
        "status": {"phase": phase, **status},
    }


class CollectRig:
    """One runner with the stand-ins on PATH; `answer` and friends set what they say."""

    def __init__(self, runner: ActionSandbox) -> None:
        self.runner = runner
        self.state = runner.sandbox.state / "collect"
        (self.state / "answers").mkdir(parents=True)
        bin_ = runner.sandbox.bin
        for name in STAND_INS:
            (bin_ / name).unlink(missing_ok=True)
            (bin_ / name).symlink_to(STUB)
        (bin_ / "python3").symlink_to(sys.executable)  # where no virtualenv is made yet

    # --- what the stand-ins say ------------------------------------------------------------
    def answer(self, call: str, text: str) -> None:
        (self.state / "answers" / key(call)).write_text(text)

    def kubectl(self, args: str, text: str) -> None:
        self.answer(f"{KUBECTL} {args}", text)

    def fail(self, tool: str, message: str) -> None:
        (self.state / f"{tool}.fail").write_text(message)

    def hang(self, tool: str) -> None:
        (self.state / f"{tool}.hang").write_text("")

    def kind_log(self, rel: str, content: str | bytes) -> None:
        path = self.state / "kind-logs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    def host_file(self, rel: str, content: str) -> None:
        path = self.runner.sandbox.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)

    def cluster(self, namespaces: list[str], pods: dict[str, list[dict[str, Any]]]) -> None:
        """A one-GPU kind cluster: its nodes, the managed namespaces, each namespace's
        events, pods and descriptions (`pods` by namespace, JSON objects)."""
        workers: list[tuple[str, dict[str, str]]] = [
            ("kind-control-plane", {}),
            ("kind-worker", {"nvidia.com/gpu": "1"}),
        ]
        nodes: list[dict[str, Any]] = []
        for name, gpu in workers:
            resources = {"cpu": "30", **gpu}
            labels = {"nvidia.com/gpu.product": "NVIDIA-A10"}
            ready = [{"type": "Ready", "status": "True"}]
            status = {"allocatable": resources, "capacity": resources, "conditions": ready}
            nodes.append({"metadata": {"name": name, "labels": labels}, "status": status})
        self.kubectl("get nodes -o json", items(*nodes))
        self.kubectl("describe nodes", "Name: kind-worker\nAllocatable:\n  nvidia.com/gpu: 1\n")
        managed = [{"metadata": {"name": ns}} for ns in namespaces]
        self.kubectl(
            "get namespaces -l app.kubernetes.io/managed-by=gpu-ci -o json", items(*managed)
        )
        for ns in namespaces:
            listed = pods.get(ns, [])
            self.kubectl(f"get pods -n {ns} -o json", items(*listed))
            names = " ".join(p["metadata"]["name"] for p in listed)
            self.kubectl(f"get pods -n {ns} -o wide", f"NAME STATUS\n{names}\n")
            self.kubectl(f"describe pods -n {ns}", f"Namespace: {ns}\n{names}\n")
            self.kubectl(
                f"get events -n {ns} --sort-by=.lastTimestamp", f"LAST SEEN TYPE REASON ({ns})\n"
            )

    def check_job(
        self, job: str, check: str, log: str, reason: str = "BackoffLimitExceeded"
    ) -> None:
        """A failed check Job in gpu-ci-checks, its one pod and that pod's log."""
        failed = {
            "metadata": {
                "namespace": CHECKS,
                "name": job,
                "labels": {"gpu-ci/check": check},
                "creationTimestamp": "2026-09-01T10:00:00Z",
            },
            "status": {
                "failed": 1,
                "conditions": [
                    {
                        "type": "Failed",
                        "status": "True",
                        "reason": reason,
                        "message": "Job has reached the specified backoff limit",
                        "lastTransitionTime": "2026-09-01T10:06:00Z",
                    }
                ],
            },
        }
        self.kubectl("get jobs -A -l gpu-ci/check -o json", items(failed))
        self.kubectl(f"describe job -n {CHECKS} {job}", f"Name: {job}\nPods Statuses: 0 Failed\n")
        job_pod = pod(CHECKS, f"{job}-x7k2p", "2026-09-01T10:00:01Z", "Failed")
        self.kubectl(
            f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name={job} -o json", items(job_pod)
        )
        self.kubectl(f"logs -n {CHECKS} {job}-x7k2p --all-containers", log)

    # --- what the step wrote ---------------------------------------------------------------
    @property
    def bundle(self) -> Path:
        return self.runner.temp / "gpu-ci-diagnostics-kind"

    @property
    def tarball(self) -> Path:
        return self.runner.temp / "gpu-ci-diagnostics-kind.tar.gz"

    def files(self) -> dict[str, bytes]:
        """Every file of the bundle folder by its path in it."""
        return {
            p.relative_to(self.bundle).as_posix(): p.read_bytes()
            for p in sorted(self.bundle.rglob("*"))
            if p.is_file()
        }

    def members(self) -> dict[str, bytes]:
        """Every file of the tarball by its path in it."""
        found = {}
        with tarfile.open(self.tarball) as tar:
            for member in tar.getmembers():
                handle = tar.extractfile(member)
                if handle is not None:
                    found[member.name] = handle.read()
        return found

    def summary(self) -> str:
        return (self.bundle / "SUMMARY.md").read_text()
