"""Run a rendered step against stub system commands in a scratch directory.

PATH holds only the stubs (`stub.bash` under each command's name) and symlinks to a
short list of harmless real tools, so a command a test forgot to stub fails with 127
instead of touching the machine. Files the steps write land under `root`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from components.host.params.step import RootedParams, Step, StepParams
from components.host.render import render_script
from components.host.result import StepResult, parse_result

STUB = Path(__file__).with_name("stub.bash")

STUBBED = (
    "apt-get",
    "apt-mark",
    "chown",
    "cloud-init",
    "curl",
    "docker",
    "dpkg",
    "dpkg-query",
    "getent",
    "gpasswd",
    "gpg",
    "id",
    "kind",
    "kubectl",
    "nvidia-ctk",
    "nvidia-smi",
    "nvkind",
    "openssl",
    "reboot",
    "sleep",
    "sudo",
    "sysctl",
    "systemctl",
    "systemd-run",
    "useradd",
    "usermod",
    "visudo",
)

REAL = (
    "base64",
    "basename",
    "bash",
    "cat",
    "chmod",
    "cmp",
    "cp",
    "date",
    "dirname",
    "env",
    "grep",
    "gzip",
    "install",
    "ls",
    "mkdir",
    "mktemp",
    "mv",
    "od",
    "rm",
    "sha256sum",
    "stat",
    "tail",
    "tar",
    "test",
    "touch",
    "tr",
    "wc",
)

OPTIONAL_REAL = ("jq",)
"""Linked when this machine has them; tests that need one skip without it."""

P = TypeVar("P", bound=StepParams)


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    calls: list[str]

    def result(self) -> StepResult:
        return parse_result(self.stdout)

    def commands(self) -> list[str]:
        """Just the command names, in call order."""
        return [call.split(" ", 1)[0] for call in self.calls]


def url_key(url: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in url)


class Sandbox:
    def __init__(self, base: Path, *, run_as: str | None = None) -> None:
        """`run_as`: run the steps as this unprivileged user (via setpriv) when the tests run
        as root, so that the scripts take their `sudo -n` path; as themselves otherwise."""
        self.base = base
        self.run_as = run_as if os.geteuid() == 0 else None
        self.root = base / "root"
        self.state = base / "state"
        self.tmp = base / "tmp"
        self.bin = base / "bin"
        for path in (self.root / "etc", self.state / "urls", self.tmp, self.bin):
            path.mkdir(parents=True)
        (self.root / "etc" / "os-release").write_text('ID=ubuntu\nVERSION_CODENAME="noble"\n')
        # A copy of the stub inside the sandbox: an unprivileged `run_as` user may not be
        # able to enter the checkout (a clone in a 0700 temporary folder).
        stub = base / "stub.bash"
        shutil.copy2(STUB, stub)
        for name in STUBBED:
            (self.bin / name).symlink_to(stub)
        for name in REAL:
            real = shutil.which(name)
            assert real is not None, f"{name} is needed by the sandbox"
            (self.bin / name).symlink_to(real)
        for name in OPTIONAL_REAL:
            real = shutil.which(name)
            if real is not None:
                (self.bin / name).symlink_to(real)

    # --- state -----------------------------------------------------------------
    def put(self, name: str, content: str = "") -> None:
        path = self.state / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)

    def exists(self, name: str) -> bool:
        return (self.state / name).exists()

    def read(self, name: str) -> str:
        return (self.state / name).read_text()

    def installed(self, package: str, version: str = "1.0-1") -> None:
        self.put(f"dpkg/{package}", version)

    def version(self, package: str) -> str | None:
        path = self.state / "dpkg" / package
        return path.read_text() if path.exists() else None

    def held(self) -> set[str]:
        path = self.state / "held"
        return {p.name for p in path.iterdir()} if path.exists() else set()

    def gpus(self, *gpus: tuple[str, str], driver: str = "570.172.08") -> None:
        self.put("driver-version", driver)
        self.put("gpus", "".join(f"{name}|{uuid}\n" for name, uuid in gpus))

    def serve(self, url: str, content: bytes) -> str:
        """Make `url` downloadable; returns the content's SHA-256."""
        (self.state / "urls" / url_key(url)).write_bytes(content)
        return hashlib.sha256(content).hexdigest()

    def api(self, method: str, url: str, status: int, body: object, *, transient: int = 0) -> None:
        """Answer `curl -X METHOD ... URL` (an API call) with `status` and JSON `body`.

        `transient` first answers that many calls with 503. Unregistered calls get 404.
        """
        key = f"{method}_{url_key(url)}"
        self.put(f"api/{key}", body if isinstance(body, str) else json.dumps(body))
        self.put(f"api/{key}.status", str(status))
        if transient:
            self.put(f"api/{key}.transient", str(transient))

    def api_requests(self) -> list[tuple[str, str, str]]:
        """(method, url, bearer token) of every API call, in order."""
        path = self.state / "api-requests.log"
        if not path.exists():
            return []
        rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
        return [(m, u, t) for m, u, t in rows]

    def api_request_body(self, method: str, url: str) -> Any:
        return json.loads(self.read(f"api/{method}_{url_key(url)}.request"))

    def user(self, name: str) -> None:
        """`name` exists on the host (for `id -u`)."""
        self.put(f"user-{name}")

    def kind_cluster(self, name: str, content: str = "") -> None:
        """A kind cluster `name` exists (as `kind get clusters` lists it)."""
        self.put(f"kind-clusters/{name}", content)

    def kind_clusters(self) -> list[str]:
        path = self.state / "kind-clusters"
        return sorted(p.name for p in path.iterdir()) if path.exists() else []

    def kube_nodes(self, *frames: str) -> None:
        """`kubectl get nodes` answers: frame i on the i-th call, the last one after.

        A frame is lines of `name|Ready status|gpu.present label|allocatable GPUs`.
        """
        for i, frame in enumerate(frames, start=1):
            self.put(f"kubectl/nodes.{i}", frame)
        self.put("kubectl/nodes", frames[-1])

    def kube_pods(self, *pods: str) -> None:
        """`kubectl get pods -A` answers with `namespace/name|phase` lines."""
        self.put("kubectl/pods", "".join(f"{pod}\n" for pod in pods))

    # --- running ---------------------------------------------------------------
    def params(self, model: type[P], **values: Any) -> P:
        """`model` rooted in this sandbox, with no backoff delay unless asked."""
        values.setdefault("retry_base_seconds", 0)
        if issubclass(model, RootedParams):
            values.setdefault("root", str(self.root))
        return model.model_validate(values)

    def _as_user(self) -> list[str]:
        """setpriv's argv to drop to `run_as` (the sandbox handed to it first), or nothing."""
        if self.run_as is None:
            return []
        import pwd

        entry = pwd.getpwnam(self.run_as)
        for folder, _, files in os.walk(self.base):
            for path in (folder, *(os.path.join(folder, f) for f in files)):
                os.lchown(path, entry.pw_uid, entry.pw_gid)
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) runs the steps unprivileged"
        ids = [f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups"]
        return [setpriv, *ids, "--"]

    def run(self, step: Step, params: StepParams, *, stdin: str | None = None) -> Run:
        script = self.base / f"{step}.sh"
        script.write_text(render_script(step, params))
        return self.run_file(script, stdin=stdin)

    def run_file(
        self,
        script: Path,
        *args: str,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run `bash SCRIPT ARGS...` in the sandbox (a rendered step or a repo script)."""
        log = self.base / "calls.log"
        log.write_text("")
        environ = {
            "PATH": str(self.bin),
            "SANDBOX": str(self.base),
            "TMPDIR": str(self.tmp),
            "HOME": str(self.base),
            "LC_ALL": "C",
            **(env or {}),
        }
        proc = subprocess.run(
            [*self._as_user(), str(self.bin / "bash"), str(script), *args],
            env=environ,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert not any(self.tmp.iterdir()), "the step left temporary files behind"
        calls = [line for line in log.read_text().splitlines() if line]
        return Run(proc.returncode, proc.stdout, proc.stderr, calls)
