"""Step tools: pinned, SHA-256-verified, all-or-nothing, atomic installs."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from components.host.params.bootstrap import ToolsParams
from components.host.params.step import Step

from .sandbox import Sandbox

GO_STUB = b"""#!/bin/bash
printf 'go %s GOFLAGS=%s GOTOOLCHAIN=%s\\n' "$*" "$GOFLAGS" "$GOTOOLCHAIN" >>"$SANDBOX/calls.log"
printf 'nvkind built from %s' "${!#}" >"$GOBIN/nvkind"
"""
TOOLS = ("kind", "kubectl", "helm", "nvkind")


def tarball(members: dict[str, tuple[bytes, int]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, (data, mode) in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def serve_all(sandbox: Sandbox, *, nvkind_binary: bool = False, **overrides: object) -> ToolsParams:
    """Serve fake artifacts at the pinned URLs and pin their real digests."""
    urls = ToolsParams.from_pins()
    digests: dict[str, object] = {
        "kind_sha256": sandbox.serve(urls.kind_url, b"kind binary"),
        "kubectl_sha256": sandbox.serve(urls.kubectl_url, b"kubectl binary"),
        "helm_sha256": sandbox.serve(
            urls.helm_url, tarball({"linux-amd64/helm": (b"helm binary", 0o755)})
        ),
        "go_sha256": sandbox.serve(urls.go_url, tarball({"go/bin/go": (GO_STUB, 0o755)})),
    }
    binary = None
    if nvkind_binary:
        binary = ("https://example.com/nvkind", sandbox.serve("https://example.com/nvkind", b"nv"))
    values = {"root": str(sandbox.root), "retry_base_seconds": 0, **digests, **overrides}
    defaults = ToolsParams.from_pins(nvkind_binary=binary).model_dump()
    return ToolsParams.model_validate({**defaults, **values})


def bindir(sandbox: Sandbox) -> Path:
    return sandbox.root / "usr/local/bin"


def test_happy_path_builds_nvkind_with_pinned_go(sandbox: Sandbox) -> None:
    params = serve_all(sandbox)
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode == 0, run.stderr
    assert [c.split(" ")[-1] for c in run.calls if c.startswith("curl")] == [
        params.kind_url,
        params.kubectl_url,
        params.helm_url,
        params.go_url,
    ]
    assert run.calls[-1] == (
        "go install github.com/NVIDIA/nvkind/cmd/nvkind@9a3061c "
        "GOFLAGS=-mod=mod -modcacherw GOTOOLCHAIN=local"
    )
    assert (bindir(sandbox) / "kind").read_bytes() == b"kind binary"
    assert (bindir(sandbox) / "kubectl").read_bytes() == b"kubectl binary"
    assert (bindir(sandbox) / "helm").read_bytes() == b"helm binary"
    assert (bindir(sandbox) / "nvkind").read_text() == (
        "nvkind built from github.com/NVIDIA/nvkind/cmd/nvkind@9a3061c"
    )
    for tool in TOOLS:
        assert (bindir(sandbox) / tool).stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in bindir(sandbox).iterdir()) == sorted(TOOLS)  # no leftovers
    assert run.result().model_extra == {"installed": list(TOOLS)}


def test_second_run_downloads_nothing(sandbox: Sandbox) -> None:
    params = serve_all(sandbox)
    sandbox.run(Step.TOOLS, params)
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == []
    assert run.result().changed is False


def test_nvkind_binary_source(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.TOOLS, serve_all(sandbox, nvkind_binary=True))
    assert run.returncode == 0, run.stderr
    assert "go" not in run.commands()
    assert (bindir(sandbox) / "nvkind").read_bytes() == b"nv"


def test_checksum_mismatch_installs_nothing(sandbox: Sandbox) -> None:
    params = serve_all(sandbox)
    sandbox.serve(params.helm_url, b"tampered helm tarball")  # the pin no longer matches
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode != 0
    assert f"gpu-ci step tools: checksum mismatch for helm ({params.helm_url})" in run.stderr
    assert f"expected {params.helm_sha256}" in run.stderr
    assert not bindir(sandbox).exists()  # kind and kubectl verified fine, still not installed
    assert "go" not in run.commands()


def test_bad_go_toolchain_checksum_installs_nothing(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.TOOLS, serve_all(sandbox, go_sha256="f" * 64))
    assert run.returncode != 0
    assert "gpu-ci step tools: checksum mismatch for go toolchain" in run.stderr
    assert not bindir(sandbox).exists()


def test_new_pin_replaces_only_that_tool(sandbox: Sandbox) -> None:
    params = serve_all(sandbox)
    sandbox.run(Step.TOOLS, params)
    newer = "https://github.com/kubernetes-sigs/kind/releases/download/v0.32.0/kind-linux-amd64"
    digest = sandbox.serve(newer, b"kind 0.32")
    run = sandbox.run(
        Step.TOOLS, params.model_copy(update={"kind_url": newer, "kind_sha256": digest})
    )
    assert run.returncode == 0, run.stderr
    assert [c.split(" ")[-1] for c in run.calls if c.startswith("curl")] == [newer]
    assert (bindir(sandbox) / "kind").read_bytes() == b"kind 0.32"
    assert run.result().model_extra == {"installed": ["kind"]}


def test_replaced_binary_is_reinstalled(sandbox: Sandbox) -> None:
    params = serve_all(sandbox)
    sandbox.run(Step.TOOLS, params)
    (bindir(sandbox) / "kubectl").write_bytes(b"someone else's kubectl")
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode == 0, run.stderr
    assert (bindir(sandbox) / "kubectl").read_bytes() == b"kubectl binary"
    assert run.result().model_extra == {"installed": ["kubectl"]}


def test_go_build_failure_fails_naming_the_step(sandbox: Sandbox) -> None:
    broken = tarball({"go/bin/go": (b"#!/bin/bash\nexit 1\n", 0o755)})
    params = serve_all(sandbox)
    params = params.model_copy(update={"go_sha256": sandbox.serve(params.go_url, broken)})
    run = sandbox.run(Step.TOOLS, params)
    assert run.returncode != 0
    assert "gpu-ci step tools: go install github.com/NVIDIA/nvkind/cmd/nvkind@9a3061c failed" in (
        run.stderr
    )
    assert not bindir(sandbox).exists()
