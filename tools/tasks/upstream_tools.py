"""The upstream tools the tests run as oracles, each pinned and built once with `go install`.

gpu-ci is checked against the real tools (Chainsaw, promtool, Helm, kubectl-validate) at the
versions it deploys or embeds, not against a reading of their source. Each is a Go module
installed with `go install MODULE/PACKAGE@VERSION`: Go fetches the module from the module
proxy and refuses it unless its hash matches Go's checksum database (GOSUMDB, forced on
here), then builds it into a cache folder outside the checkout, `CACHE/NAME-VERSION/NAME`,
reused while the binary's own build record (`go version -m`) still names that module and
version. Needs only the standard library, like tasks.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GoTool:
    """One tool: the binary `name`, built from `package` of `module` at `version`."""

    name: str
    module: str
    package: str
    version: str
    why: str  # why this version: what gpu-ci deploys or embeds that it stands for
    # Set where the module's go.mod has `replace` directives, which `go install M@V` refuses
    # (cmd/go: "must not contain directives that would cause it to be interpreted differently
    # than if it were the main module"): the module is downloaded, verified the same way, and
    # built as the main module in its own folder, as its release build does; these -X flags
    # give the binary the version string that build would.
    main_module_ldflags: tuple[str, ...] | None = None

    @property
    def target(self) -> str:
        return f"{self.package}@{self.version}"


TOOLS = (
    GoTool(
        "chainsaw",
        "github.com/kyverno/chainsaw",
        "github.com/kyverno/chainsaw",
        "v0.2.15",
        "the image the health-check Jobs run (components/pins.py CHAINSAW_IMAGE)",
    ),
    GoTool(
        "promtool",
        "github.com/prometheus/prometheus",
        "github.com/prometheus/prometheus/cmd/promtool",
        "v0.311.3",
        "Prometheus v3.11.3, which kube-prometheus-stack 84.4.0 deploys (Prometheus tags its "
        "Go module v0.3MM.P for release 3.MM.P)",
        main_module_ldflags=(
            "-X github.com/prometheus/common/version.Version=3.11.3",
            "-X github.com/prometheus/common/version.Branch=release-3.11",
        ),
    ),
    GoTool(
        "helm",
        "helm.sh/helm/v3",
        "helm.sh/helm/v3/cmd/helm",
        "v3.20.2",
        "the Helm library pulumi-kubernetes embeds to render helm.v3.Release "
        "(provider/go.mod of pulumi-kubernetes @ 94977969, the newest source stored)",
    ),
    GoTool(
        "kubectl-validate",
        "sigs.k8s.io/kubectl-validate",
        "sigs.k8s.io/kubectl-validate",
        "v0.0.5-0.20260105161640-a97ccfaca20b",
        "Kubernetes' own OpenAPI validation offline (built-in schemas per Kubernetes "
        "version, CRDs from a folder) for Kubernetes 1.35, kind 0.31.0's default node image: "
        "the newest release, v0.0.4 (2024), embeds schemas up to 1.30 only and would fetch "
        "newer ones from GitHub; this pseudo-version is master @ a97ccfac (2026-01-05, PR "
        "#175 'upgrade to kubernetes 1.35', pkg/openapiclient/builtins/1.35)",
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}

# Go's module verification, forced: nothing in the caller's environment may turn it off.
_VERIFIED_ENV = {
    "GOSUMDB": "sum.golang.org",
    "GOFLAGS": "",
    "GONOSUMDB": "",
    "GONOSUMCHECK": "",
    "GOPRIVATE": "",
    "GOINSECURE": "",
    "GOTOOLCHAIN": "local",
}
NO_GO = (
    "Go not found: the tests that run the upstream tools ({names}) need Go 1.26 or newer on "
    "PATH to build them once (`go install`, from the Go module proxy); install it from "
    "https://go.dev/dl/. Without it those tests skip here and fail where CI runs."
)


def required() -> bool:
    """Whether the tools must be there: under CI (`CI` set) or where `.ci/run` asks for the
    upstream data and tools (`GPU_CI_REQUIRE_UPSTREAM=1`); elsewhere they may be missing."""
    return os.environ.get("GPU_CI_REQUIRE_UPSTREAM") == "1" or bool(os.environ.get("CI"))


def cache_root() -> Path:
    """GPU_CI_TOOLS_CACHE, else gpu-ci/tools under the user's cache folder (XDG)."""
    given = os.environ.get("GPU_CI_TOOLS_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-ci" / "tools"


def binary(tool: GoTool, root: Path | None = None) -> Path:
    return (root or cache_root()) / f"{tool.name}-{tool.version}" / tool.name


def built_from(path: Path, go: str) -> tuple[str, str] | None:
    """(module, version) the binary at `path` records it was built from (`go version -m`)."""
    done = subprocess.run(
        [go, "version", "-m", str(path)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return None
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] == "mod":
            return fields[1], fields[2]
    return None


def source_record(tool: GoTool, root: Path | None = None) -> Path:
    """Beside a binary built as the main module: the module, version and hash it came from
    (`go version -m` records such a build's version as `(devel)`)."""
    return binary(tool, root).with_suffix(".source")


def is_current(tool: GoTool, go: str, root: Path | None = None) -> bool:
    path = binary(tool, root)
    if not path.is_file():
        return False
    recorded = built_from(path, go)
    if tool.main_module_ldflags is None:
        return recorded == (tool.module, tool.version)
    record = source_record(tool, root)
    return (
        recorded == (tool.module, "(devel)")
        and record.is_file()
        and record.read_text().split()[:2] == [tool.module, tool.version]
    )


def install(tool: GoTool, go: str, root: Path | None = None) -> Path:
    """Build `tool` into its cache folder unless it is there already; its path.

    Built in a scratch folder beside the final one and moved in whole, so an interrupted
    build never leaves a binary that looks current.
    """
    path = binary(tool, root)
    if is_current(tool, go, root):
        return path
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **_VERIFIED_ENV}
    with tempfile.TemporaryDirectory(dir=path.parent.parent, prefix=".build-") as scratch:
        env["GOBIN"] = scratch
        started = time.monotonic()
        built = Path(scratch) / tool.name
        if tool.main_module_ldflags is None:
            say(f"building {tool.name} {tool.version} (go install {tool.target})")
            _go(go, ["install", tool.target], env, f"go install {tool.target}")
            if built_from(built, go) != (tool.module, tool.version):
                raise ToolError(f"go install {tool.target} built no {tool.name} of that version")
            source = None
        else:
            say(f"building {tool.name} {tool.version} ({tool.module} as the main module)")
            source = _build_main_module(tool, go, env, built)
        if path.parent.exists():
            shutil.rmtree(path.parent)
        path.parent.mkdir()
        built.replace(path)
        if source is not None:
            source_record(tool, root).write_text(source)
        say(f"built {tool.name} in {time.monotonic() - started:.0f} s: {path}")
    return path


def _build_main_module(tool: GoTool, go: str, env: dict[str, str], out: Path) -> str:
    """`go mod download` (verified against GOSUMDB) then `go build` in the module's folder;
    the source record: module, version and the module's hash."""
    target = f"{tool.module}@{tool.version}"
    listed = _go(go, ["mod", "download", "-json", target], env, f"go mod download {target}")
    info = json.loads(listed)
    if (info.get("Path"), info.get("Version")) != (tool.module, tool.version):
        raise ToolError(f"go mod download {target} gave {info.get('Path')}@{info.get('Version')}")
    package = "." + tool.package.removeprefix(tool.module)
    flags = " ".join(tool.main_module_ldflags or ())
    build = ["build", "-trimpath", "-ldflags", flags, "-o", str(out), package]
    _go(
        go,
        build,
        {**env, "GOFLAGS": "-mod=readonly", "GOWORK": "off"},
        f"go build {target} {package}",
        info["Dir"],
    )
    return f"{tool.module} {tool.version} {info['Sum']}\n"


def _go(go: str, args: list[str], env: dict[str, str], what: str, cwd: str | None = None) -> str:
    """Run go; its stdout, or a ToolError with what it printed."""
    done = subprocess.run(
        [go, *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ToolError(
            f"{what} failed (exit {done.returncode}):\n"
            + (done.stderr or done.stdout).strip()[-4000:]
        )
    return done.stdout


class ToolError(RuntimeError):
    """A tool could not be built; the message says which and why."""


def say(line: str) -> None:
    print(f"tasks.py: {line}", flush=True)


def install_all(required: bool) -> bool:
    """Every tool of TOOLS built (or found current) in the cache; whether they all are.

    Without Go it says so once and returns False, or exits where the tools are `required`
    (CI). A failed build always exits: a pinned tool that does not build is a broken pin.
    """
    go = shutil.which("go")
    names = ", ".join(tool.name for tool in TOOLS)
    if go is None:
        if required:
            sys.exit("tasks.py: " + NO_GO.format(names=names))
        say(NO_GO.format(names=names))
        return False
    missing = [tool for tool in TOOLS if not is_current(tool, go)]
    if not missing:
        say(f"upstream tools current in {cache_root()}: {names}")
        return True
    for tool in missing:
        try:
            install(tool, go)
        except ToolError as error:
            sys.exit(f"tasks.py: {error}")
    return True
