"""Run a rendered step against stub system commands in a scratch directory.

PATH holds only the stubs (`stub.bash` under each command's name) and symlinks to a
short list of harmless real tools, so a command a test forgot to stub fails with 127
instead of touching the machine. Files the steps write land under `root`.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from components.host.params import RootedParams, Step, StepParams
from components.host.render import render_script
from components.host.result import StepResult, parse_result

STUB = Path(__file__).with_name("stub.bash")

STUBBED = (
    "apt-get",
    "apt-mark",
    "curl",
    "docker",
    "dpkg",
    "dpkg-query",
    "getent",
    "gpg",
    "nvidia-ctk",
    "nvidia-smi",
    "reboot",
    "sleep",
    "sudo",
    "sysctl",
    "systemctl",
    "systemd-run",
    "usermod",
)

REAL = (
    "basename",
    "bash",
    "cat",
    "cmp",
    "cp",
    "dirname",
    "env",
    "grep",
    "gzip",
    "install",
    "ls",
    "mkdir",
    "mktemp",
    "mv",
    "rm",
    "sha256sum",
    "tar",
    "touch",
    "tr",
    "wc",
)

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
    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "root"
        self.state = base / "state"
        self.tmp = base / "tmp"
        self.bin = base / "bin"
        for path in (self.root / "etc", self.state / "urls", self.tmp, self.bin):
            path.mkdir(parents=True)
        (self.root / "etc" / "os-release").write_text('ID=ubuntu\nVERSION_CODENAME="noble"\n')
        for name in STUBBED:
            (self.bin / name).symlink_to(STUB)
        for name in REAL:
            real = shutil.which(name)
            assert real is not None, f"{name} is needed by the sandbox"
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

    # --- running ---------------------------------------------------------------
    def params(self, model: type[P], **values: Any) -> P:
        """`model` rooted in this sandbox, with no backoff delay unless asked."""
        values.setdefault("retry_base_seconds", 0)
        if issubclass(model, RootedParams):
            values.setdefault("root", str(self.root))
        return model.model_validate(values)

    def run(self, step: Step, params: StepParams) -> Run:
        script = self.base / f"{step}.sh"
        script.write_text(render_script(step, params))
        log = self.base / "calls.log"
        log.write_text("")
        env = {
            "PATH": str(self.bin),
            "SANDBOX": str(self.base),
            "TMPDIR": str(self.tmp),
            "HOME": str(self.base),
            "LC_ALL": "C",
        }
        proc = subprocess.run(
            [str(self.bin / "bash"), str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert not any(self.tmp.iterdir()), "the step left temporary files behind"
        calls = [line for line in log.read_text().splitlines() if line]
        return Run(proc.returncode, proc.stdout, proc.stderr, calls)
