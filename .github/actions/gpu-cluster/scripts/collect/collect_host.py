"""The host's side of the bundle: the GPU, the kernel's Xid lines, the container runtime's
configuration, kind's node logs, and (from the action) its own logs of `pulumi up`.

The files read are where the host steps put them: Docker's /etc/docker/daemon.json and
the toolkit's /etc/nvidia-container-runtime/config.toml (`nvidia-ctk runtime configure`
and `nvidia-ctk config`: components/host/scripts/toolkit-config.sh), and the CDI spec
folders the toolkit and nvkind use (/etc/cdi and /var/run/cdi: cncf-tags/
container-device-interface pkg/cdi/spec-dirs.go, DefaultSpecDirs). `--root` prefixes
them (the tests' scratch root, as GPU_CI_ROOT does for the action's steps).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from collect_cluster import Failure
from collect_run import FAILED, OK, Runner

CONFIG_FILES = ("etc/docker/daemon.json", "etc/nvidia-container-runtime/config.toml")
CDI_DIRS = ("etc/cdi", "var/run/cdi")
# The driver's Xid report in the kernel log, `NVRM: Xid (PCI:0000:01:00): 79, pid=...,
# GPU has fallen off the bus.` (NVIDIA, "Xid Errors", docs.nvidia.com/deploy/xid-errors;
# the same shape leptonai/gpud matches, components/accelerator/nvidia/error/xid).
XID = re.compile(r"NVRM: Xid \(([^)]*)\): (\d+)")
# A host step's log line in `pulumi up`'s output (components/host/scripts/lib.sh, die).
HOST_STEP = re.compile(r"gpu-ci step ([a-z0-9-]+): (.*)$")
ACTION_FILES = ("stack.json", "versions.json", "up-cluster.log", "up-full.log", "destroy.log")


class Host:
    def __init__(self, runner: Runner, root: Path) -> None:
        self.runner = runner
        self.root = root

    def collect(self, kind: str, cluster: str, kind_as_root: bool) -> list[Failure]:
        run = self.runner.run
        run("nvidia-smi -q", ["nvidia-smi", "-q"], "host/nvidia-smi-q.txt")
        failures = self.kernel()
        for rel in CONFIG_FILES:
            self.runner.copy(f"/{rel}", self.root / rel, f"host/{rel}")
        for rel in CDI_DIRS:
            self.cdi(rel)
        self.kind_logs(kind, cluster, kind_as_root)
        return failures

    def kernel(self) -> list[Failure]:
        """The kernel log (journald's, else the ring buffer's) and its Xid lines."""
        rel = "host/kernel.log"
        done = self.runner.run(
            "journalctl -k", ["journalctl", "-k", "--no-pager", "-o", "short-iso"], rel, root=True
        )
        if not done.ok:
            done = self.runner.run("dmesg", ["dmesg", "--time-format", "iso"], rel, root=True)
        xids = [line for line in done.text().splitlines() if XID.search(line)]
        (self.runner.ship / "host").mkdir(parents=True, exist_ok=True)
        (self.runner.ship / "host" / "xid.txt").write_text(
            "".join(f"{line}\n" for line in xids) or "no NVRM Xid line in the kernel log\n",
            encoding="utf-8",
        )
        if not xids:
            return []
        match = XID.search(xids[0])
        assert match is not None
        text = f"Xid {match.group(2)} on {match.group(1)}: {xids[0].strip()[:400]}"
        more = f" ({len(xids)} Xid lines in all)" if len(xids) > 1 else ""
        return [Failure("Xid", text + more, "host/xid.txt")]

    def cdi(self, rel: str) -> None:
        folder = self.root / rel
        if not folder.is_dir():
            self.runner.note(f"/{rel}", "absent", "", f"no {folder}")
            return
        try:
            names = sorted(p.name for p in folder.iterdir() if p.is_file())
        except OSError as error:
            self.runner.note(f"/{rel}", FAILED, "", f"{folder}: {error.strerror}")
            return
        if not names:
            self.runner.note(f"/{rel}", OK, "", "no CDI spec in it")
        for name in names:
            self.runner.copy(f"/{rel}/{name}", folder / name, f"host/{rel}/{name}")

    def kind_logs(self, kind: str, cluster: str, as_root: bool) -> None:
        """`kind export logs DIR --name CLUSTER` (kind v0.31.0 pkg/cmd/kind/export/logs:
        each node's journal, kubelet and containerd logs, /var/log with the pods' logs,
        `docker inspect`); made readable for the redaction pass when kind ran as root."""
        folder = self.runner.ship / "kind-logs"
        self.runner.run(
            "kind export logs",
            [kind, "export", "logs", str(folder), "--name", cluster],
            factor=4,
            root=as_root,
        )
        if as_root and folder.exists() and os.geteuid() != 0:
            owner = f"{os.getuid()}:{os.getgid()}"
            self.runner.run("kind-logs ownership", ["chown", "-R", owner, str(folder)], root=True)


def action_files(runner: Runner, work: Path) -> list[Failure]:
    """The action's own files for this cluster (its stack config, versions, the `up` and
    `destroy` logs) and the first host step that failed in them."""
    failures: list[Failure] = []
    for name in ACTION_FILES:
        source = work / name
        if source.is_file():
            runner.copy(f"action {name}", source, f"action/{name}")
    for name in ("up-cluster.log", "up-full.log", "destroy.log"):
        source = work / name
        if not source.is_file():
            continue
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        steps = [m for line in lines if (m := HOST_STEP.search(line))]
        if steps:
            first = steps[0].group(1)
            cause = [m.group(2) for m in steps if m.group(1) == first][-1]
            failures.append(Failure("host step", f"host step {first}: {cause}", f"action/{name}"))
            break
    return failures
