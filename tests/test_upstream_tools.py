"""The pinned upstream-tool installer: what it asks Go for, what it reuses, how it fails.

A stand-in `go` on PATH records each call with the environment Go's verification reads,
writes the binary `go install` or `go build` would, its build record (module and version)
inside it as Go's are, and answers `go version -m` from that record.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import TypedDict

import pytest
import yaml

from components.pins import CHECK_PINS
from tests import upstream_tools as test_side
from tests.upstream_tools import run_tool
from tools.tasks import upstream_tools
from tools.tasks.upstream_tools import BY_NAME, TOOLS, GoTool, binary, install, install_all

# A release, or a pseudo-version naming one commit exactly (Go's module reference:
# vX.Y.(Z+1)-0.yyyymmddhhmmss-abcdefabcdef), never a branch or `latest`.
EXACT_VERSION = r"v[0-9]+\.[0-9]+\.[0-9]+(-0\.[0-9]{14}-[0-9a-f]{12})?"

FAKE_GO = r"""#!/usr/bin/env python3
import json, os, sys
from pathlib import Path
log = Path(os.environ["FAKE_GO_LOG"])
keys = ("GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GOINSECURE", "GOFLAGS",
        "GOTOOLCHAIN", "GOBIN", "GOWORK")
with log.open("a") as out:
    env = {k: os.environ.get(k) for k in keys}
    out.write(json.dumps({"argv": sys.argv[1:], "env": env, "cwd": os.getcwd()}) + "\n")
tools = json.loads(os.environ["FAKE_GO_TOOLS"])
if sys.argv[1:3] == ["version", "-m"]:
    built = Path(sys.argv[3])
    if not built.exists():
        sys.exit(1)
    _, module, version = built.read_text().split()
    print(f"{sys.argv[3]}: go1.26.8\n\tpath\t{module}\n\tmod\t{module}\t{version}\th1:x=")
    sys.exit(0)
if os.environ.get("FAKE_GO_FAIL"):
    print("verifying " + sys.argv[-1] + ": checksum mismatch", file=sys.stderr)
    sys.exit(1)
if sys.argv[1:4] == ["mod", "download", "-json"]:
    module, version = sys.argv[4].split("@")
    folder = Path(os.environ["FAKE_GO_MODULES"]) / f"{module.replace('/', '_')}@{version}"
    folder.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"Path": module, "Version": version, "Dir": str(folder), "Sum": "h1:abc="}))
    sys.exit(0)
if sys.argv[1] == "build":
    out = Path(sys.argv[sys.argv.index("-o") + 1])
    module = next(m for (n, m) in tools.values() if n == out.name)
    out.write_text(f"binary {module} (devel)")
    sys.exit(0)
if sys.argv[1] == "install":
    package, version = sys.argv[2].split("@")
    name, module = tools[package]
    built = Path(os.environ["GOBIN"]) / name
    built.write_text(f"binary {module} {os.environ.get('FAKE_GO_VERSION', version)}")
    sys.exit(0)
sys.exit(2)
"""


@pytest.fixture
def fake_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in `go` first on PATH, a fresh cache; the call log's path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    go = bin_dir / "go"
    go.write_text(FAKE_GO.replace("#!/usr/bin/env python3", f"#!{sys.executable}"))
    go.chmod(go.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "go-calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_GO_LOG", str(log))
    monkeypatch.setenv("FAKE_GO_TOOLS", json.dumps({t.package: [t.name, t.module] for t in TOOLS}))
    monkeypatch.setenv("GPU_CI_TOOLS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_GO_MODULES", str(tmp_path / "modules"))
    return log


class Call(TypedDict):
    argv: list[str]
    env: dict[str, str | None]
    cwd: str


def calls(log: Path) -> list[Call]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def installs(log: Path) -> list[list[str]]:
    """The calls that fetch or build (not the `go version -m` reads)."""
    return [c["argv"] for c in calls(log) if c["argv"][0] != "version"]


def expected_calls(tool: GoTool) -> list[list[str]]:
    if tool.main_module_ldflags is None:
        return [["install", tool.target]]
    package = "." + tool.package.removeprefix(tool.module)
    out = f"{tool.name}"
    return [
        ["mod", "download", "-json", f"{tool.module}@{tool.version}"],
        ["build", "-trimpath", "-ldflags", " ".join(tool.main_module_ldflags), "-o", out, package],
    ]


def normalised(argv: list[str]) -> list[str]:
    """A build's `-o` path cut to the binary's name (it is a scratch folder)."""
    return [Path(a).name if i and argv[i - 1] == "-o" else a for i, a in enumerate(argv)]


def test_each_tool_is_built_once_at_its_pin_into_the_cache(fake_go: Path, tmp_path: Path) -> None:
    assert install_all(required=True) is True
    assert [normalised(a) for a in installs(fake_go)] == [
        argv for tool in TOOLS for argv in expected_calls(tool)
    ]
    for tool in TOOLS:
        path = tmp_path / "cache" / f"{tool.name}-{tool.version}" / tool.name
        assert binary(tool) == path and path.read_text().startswith(f"binary {tool.module} ")


def test_go_s_checksum_verification_cannot_be_turned_off_by_the_caller(
    fake_go: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {
        "GOSUMDB": "off",
        "GONOSUMDB": "*",
        "GONOSUMCHECK": "1",
        "GOPRIVATE": "*",
        "GOINSECURE": "*",
        "GOFLAGS": "-insecure",
        "GOTOOLCHAIN": "auto",
    }.items():
        monkeypatch.setenv(key, value)
    install_all(required=True)
    fetches = [c for c in calls(fake_go) if c["argv"][0] in ("install", "mod", "build")]
    assert len(fetches) == sum(len(expected_calls(t)) for t in TOOLS)
    for call in fetches:
        env = call["env"]
        assert isinstance(env, dict)
        assert env["GOSUMDB"] == "sum.golang.org"
        assert env["GONOSUMDB"] == env["GONOSUMCHECK"] == env["GOPRIVATE"] == ""
        assert env["GOINSECURE"] == ""
        assert env["GOTOOLCHAIN"] == "local"
        assert env["GOFLAGS"] == ("-mod=readonly" if call["argv"][0] == "build" else "")


def test_a_module_with_replace_directives_is_built_as_the_main_module_in_its_folder(
    fake_go: Path, tmp_path: Path
) -> None:
    """Its own go.mod (replace directives included) and no go.work decide the build."""
    promtool = BY_NAME["promtool"]
    install(promtool, "go")
    build = next(c for c in calls(fake_go) if c["argv"][0] == "build")
    assert build["cwd"] == str(tmp_path / "modules" / "github.com_prometheus_prometheus@v0.311.3")
    assert build["env"]["GOWORK"] == "off"
    flags = build["argv"][build["argv"].index("-ldflags") + 1]
    assert "-X github.com/prometheus/common/version.Version=3.11.3" in flags
    record = binary(promtool).with_suffix(".source").read_text()
    assert record == "github.com/prometheus/prometheus v0.311.3 h1:abc=\n"
    fake_go.unlink()
    assert install(promtool, "go") == binary(promtool)
    assert installs(fake_go) == []


def test_a_current_cache_is_reused_without_building(
    fake_go: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_all(required=True)
    fake_go.unlink()
    capsys.readouterr()
    assert install_all(required=True) is True
    assert installs(fake_go) == []
    assert "upstream tools current in" in capsys.readouterr().out


def test_a_binary_of_another_version_is_rebuilt(fake_go: Path) -> None:
    install_all(required=True)
    chainsaw = BY_NAME["chainsaw"]
    binary(chainsaw).write_text(f"binary {chainsaw.module} v0.2.14")
    promtool = BY_NAME["promtool"]
    binary(promtool).with_suffix(".source").write_text(f"{promtool.module} v0.310.0 h1:old=")
    fake_go.unlink()
    install_all(required=True)
    assert [normalised(a) for a in installs(fake_go)] == [
        *expected_calls(chainsaw),
        *expected_calls(promtool),
    ]


def test_a_failed_build_exits_with_go_s_reason_and_leaves_nothing(
    fake_go: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GO_FAIL", "1")
    with pytest.raises(SystemExit) as stopped:
        install_all(required=False)
    message = str(stopped.value.code)
    assert message.startswith(f"tasks.py: go install {TOOLS[0].target} failed (exit 1):\n")
    assert "checksum mismatch" in message
    assert not binary(TOOLS[0]).exists()
    assert [p.name for p in binary(TOOLS[0]).parent.parent.iterdir()] == []


def test_a_build_of_the_wrong_version_is_refused(
    fake_go: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GO_VERSION", "v9.9.9")
    tool = BY_NAME["helm"]
    with pytest.raises(upstream_tools.ToolError, match="built no helm of that version"):
        install(tool, "go")
    assert not binary(tool).exists()


def test_without_go_ci_stops_with_one_message_and_elsewhere_it_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(SystemExit) as stopped:
        install_all(required=True)
    assert str(stopped.value.code).startswith("tasks.py: Go not found: the tests that run")
    assert "chainsaw, promtool, helm, kubectl-validate" in str(stopped.value.code)
    assert install_all(required=False) is False
    assert "skip here and fail where CI runs" in capsys.readouterr().out


def test_the_tasks_test_command_requires_the_tools_under_ci(tmp_path: Path) -> None:
    """`.ci/run` sets the variable that makes a missing Go a failure, not a skip."""
    ci_run = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "GPU_CI_REQUIRE_UPSTREAM=1 python3 tasks.py test" in ci_run


@pytest.mark.parametrize("name", [t.name for t in TOOLS])
def test_a_missing_tool_fails_under_ci_and_skips_elsewhere(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_CI_TOOLS_CACHE", str(tmp_path / "empty"))
    test_side._found.cache_clear()
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GPU_CI_REQUIRE_UPSTREAM", raising=False)
    try:
        with pytest.raises(pytest.skip.Exception, match=f"{name} .* not built at"):
            test_side.tool(name)
        monkeypatch.setenv("CI", "true")
        with pytest.raises(pytest.fail.Exception, match=re.escape("run `python3 tasks.py test`")):
            test_side.tool(name)
    finally:
        test_side._found.cache_clear()


def test_every_pin_is_an_exact_release_of_a_go_module() -> None:
    for tool in TOOLS:
        assert isinstance(tool, GoTool)
        assert re.fullmatch(EXACT_VERSION, tool.version), tool
        assert tool.package == tool.module or tool.package.startswith(tool.module + "/")
        assert tool.package.rsplit("/", 1)[-1] == tool.name, tool
    assert len(BY_NAME) == len(TOOLS)


def test_chainsaw_is_the_release_the_check_jobs_run() -> None:
    assert BY_NAME["chainsaw"].version == CHECK_PINS.chainsaw_version
    assert f":{CHECK_PINS.chainsaw_version}@" in CHECK_PINS.chainsaw_image


def test_promtool_is_the_prometheus_the_pinned_chart_deploys(upstream: Path) -> None:
    """Prometheus tags its Go module v0.3MM.P for release v3.MM.P (its RELEASE.md)."""
    values = yaml.safe_load(
        (upstream / "helm-charts/kube-prometheus-stack-84.4.0/values.yaml").read_text()
    )
    deployed = values["prometheus"]["prometheusSpec"]["image"]["tag"]
    major, minor, patch = deployed.removeprefix("v").split(".")
    assert BY_NAME["promtool"].version == f"v0.{int(major)}{int(minor):02d}.{patch}"


def test_the_installed_tools_are_the_pinned_ones() -> None:
    """Where `tasks.py test` built them (CI always), each says it is its pin."""
    said = {
        "chainsaw": (["version"], "Version: v0.2.15"),
        "promtool": (["--version"], "promtool, version 3.11.3 (branch: release-3.11"),
        # helm's own default (internal/version), as the library pulumi-kubernetes embeds
        # reports it: only release builds stamp the patch in with -ldflags
        "helm": (["version", "--template", "{{.Version}}"], "v3.20"),
    }
    for name, (args, expected) in said.items():
        done = run_tool(name, *args, timeout=60)
        assert done.returncode == 0, done.stderr
        assert expected in done.stdout + done.stderr, (name, done.stdout, done.stderr)
    done = run_tool("kubectl-validate", "--help", timeout=60)
    assert done.returncode == 0 and "--local-crds" in done.stdout, done.stdout
