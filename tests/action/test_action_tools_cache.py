"""The host-tools cache against the real tools step, as the plan renders it.

A second run must download nothing the first one verified: `tools-cache.sh collect` keeps
what the tools step installed, `restore` puts it back on a fresh runner, and the tools
step rendered by the offline plan (its stdin in plan.json, run here under the sandbox's
root) then finds every tool current. Pins are faked through the action's stack-config
input (a tool's version and SHA-256 are config), so the sandbox can serve their bytes.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import yaml

from tests.components.host.sandbox import Run

from .action_sandbox import ActionSandbox, sha256

TOOLS = ("kind", "kubectl", "helm", "nvkind")
NVKIND_URL = "https://example.com/nvkind-linux-amd64"


def helm_tarball() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"helm binary"
        info = tarfile.TarInfo("linux-amd64/helm")
        info.size, info.mode = len(data), 0o755
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


HELM_TARBALL = helm_tarball()  # once: gzip stamps the time, so each build differs


def configure_with_fake_pins(runner: ActionSandbox, *, nvkind_binary: bool = True) -> None:
    serve = runner.sandbox.serve
    versions: dict[str, object] = {
        "kind": {
            "version": "0.31.0",
            "sha256": serve(
                "https://github.com/kubernetes-sigs/kind/releases/download/v0.31.0/kind-linux-amd64",
                b"kind binary",
            ),
        },
        "kubectl": {
            "version": "1.35.0",
            "sha256": serve(
                "https://dl.k8s.io/release/v1.35.0/bin/linux/amd64/kubectl", b"kubectl binary"
            ),
        },
        "helm": {
            "version": "4.1.4",
            "sha256": serve("https://get.helm.sh/helm-v4.1.4-linux-amd64.tar.gz", HELM_TARBALL),
        },
    }
    if nvkind_binary:
        versions["nvkind"] = {
            "binaryUrl": NVKIND_URL,
            "binarySha256": serve(NVKIND_URL, b"nvkind binary"),
        }
    pins = runner.sandbox.base / "workspace" / "pins.yaml"
    pins.write_text(yaml.safe_dump({"config": {"gpu-ci:host": {"versions": versions}}}))
    for step in ("prepare", "configure"):
        run = runner.run(step, stack_config="pins.yaml")
        assert run.returncode == 0, f"{step}: {run.stdout}{run.stderr}"


def tools_step(runner: ActionSandbox) -> Run:
    """The plan's host-tools step, rooted in the sandbox (as tests/host run the steps)."""
    stdin = next(
        r["inputs"]["stdin"] for r in runner.plan()["resources"] if r["name"] == "host-tools"
    )
    script = stdin.replace("readonly ROOT=''", f"readonly ROOT='{runner.sandbox.root}'")
    script = script.replace("readonly RETRY_BASE_SECONDS=2", "readonly RETRY_BASE_SECONDS=0")
    assert script != stdin
    path = runner.sandbox.base / "host-tools.sh"
    path.write_text(script)
    return runner.sandbox.run_file(path)


def installed(run: Run) -> list[str]:
    result: list[str] = json.loads(run.stdout.strip().splitlines()[-1])["installed"]
    return result


def downloads(run: Run) -> list[str]:
    return [call.split(" ")[-1] for call in run.calls if call.startswith("curl")]


def fresh_runner(runner: ActionSandbox) -> None:
    """A new VM: nothing of the tools step's left on the host (the cache is restored)."""
    for path in ("usr/local/bin", "var/lib/gpu-ci/tools"):
        shutil.rmtree(runner.sandbox.root / path, ignore_errors=True)


def cached(runner: ActionSandbox) -> Path:
    return runner.cache / "tools" / "host"


def test_a_second_run_downloads_no_tool(runner: ActionSandbox) -> None:
    configure_with_fake_pins(runner)
    first = tools_step(runner)
    assert first.returncode == 0, first.stderr
    assert installed(first) == list(TOOLS)
    collect = runner.run("tools-cache", "collect")
    assert collect.returncode == 0, collect.stderr
    assert sorted(p.name for p in cached(runner).iterdir()) == sorted(
        [*TOOLS, *(f"{t}.stamp" for t in TOOLS)]
    )

    fresh_runner(runner)
    restore = runner.run("tools-cache", "restore")
    assert restore.returncode == 0, restore.stderr
    assert "restored from the cache: kind kubectl helm nvkind" in restore.stderr
    second = tools_step(runner)
    assert second.returncode == 0, second.stderr
    assert installed(second) == [] and downloads(second) == []
    bindir = runner.sandbox.root / "usr/local/bin"
    assert (bindir / "helm").read_bytes() == b"helm binary"
    assert (bindir / "kind").stat().st_mode & 0o777 == 0o755


def test_a_tampered_cached_tool_is_dropped_and_verified_afresh(runner: ActionSandbox) -> None:
    configure_with_fake_pins(runner)
    assert tools_step(runner).returncode == 0
    assert runner.run("tools-cache", "collect").returncode == 0
    (cached(runner) / "helm").write_bytes(b"someone else's helm")
    fresh_runner(runner)
    restore = runner.run("tools-cache", "restore")
    assert restore.returncode == 0, restore.stderr
    assert (
        "::warning title=gpu-ci step tools-cache::cached helm does not match this plan's pin"
        in restore.stdout
    )
    assert not (cached(runner) / "helm").exists()
    second = tools_step(runner)
    assert installed(second) == ["helm"]
    assert downloads(second) == ["https://get.helm.sh/helm-v4.1.4-linux-amd64.tar.gz"]


def test_a_cached_tool_of_another_pin_is_not_used(runner: ActionSandbox) -> None:
    configure_with_fake_pins(runner)
    assert tools_step(runner).returncode == 0
    assert runner.run("tools-cache", "collect").returncode == 0
    stamp = cached(runner) / "kind.stamp"
    digest = sha256(b"kind binary")
    stamp.write_text(f"{'e' * 64} {digest}\n")  # installed from another release's pin
    fresh_runner(runner)
    restore = runner.run("tools-cache", "restore")
    assert "cached kind does not match this plan's pin" in restore.stderr
    assert installed(tools_step(runner)) == ["kind"]


def test_an_nvkind_built_from_source_is_kept_by_commit_and_go_pin(runner: ActionSandbox) -> None:
    """The pinned Go build (no download to check): kept by the identity the step stamps."""
    configure_with_fake_pins(runner, nvkind_binary=False)
    plan_env = (runner.work / "plan.env").read_text()
    go_sha = plan_env.split("GPU_CI_TOOLS_GO_SHA256=", 1)[1].split("\n", 1)[0]
    commit = plan_env.split("GPU_CI_TOOLS_NVKIND_COMMIT=", 1)[1].split("\n", 1)[0]
    # As a first run left it: kind, kubectl, helm downloaded; nvkind built with the pinned Go.
    tools_dir = cached(runner)
    tools_dir.mkdir(parents=True)
    for tool, data, identity in (
        ("kind", b"kind binary", sha256(b"kind binary")),
        ("kubectl", b"kubectl binary", sha256(b"kubectl binary")),
        ("helm", b"helm binary", sha256(HELM_TARBALL)),
        ("nvkind", b"nvkind built from 9a3061c", f"go:{commit}:{go_sha}"),
    ):
        (tools_dir / tool).write_bytes(data)
        (tools_dir / f"{tool}.stamp").write_text(f"{identity} {sha256(data)}\n")
    restore = runner.run("tools-cache", "restore")
    assert restore.returncode == 0, restore.stderr
    run = tools_step(runner)
    assert run.returncode == 0, run.stderr
    assert installed(run) == [] and downloads(run) == []
    assert "go" not in run.commands()

    (tools_dir / "nvkind.stamp").write_text(f"go:0000000:{go_sha} {sha256(b'x')}\n")
    fresh_runner(runner)
    restore = runner.run("tools-cache", "restore")
    assert "cached nvkind does not match this plan's pin" in restore.stderr


def test_restore_and_collect_leave_a_current_host_alone(runner: ActionSandbox) -> None:
    configure_with_fake_pins(runner)
    assert tools_step(runner).returncode == 0
    assert runner.run("tools-cache", "collect").returncode == 0
    restore = runner.run("tools-cache", "restore")
    assert "restored from the cache: nothing" in restore.stderr
    assert restore.calls == []  # no sudo, no install: the host's tools are current
    collect = runner.run("tools-cache", "collect")
    assert "kept for the cache: nothing new" in collect.stderr
