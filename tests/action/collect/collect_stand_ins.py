"""What test_collect_sources.py and test_collect_inputs.py give collect.py's main beyond
collect_sandbox's stand-ins: a kubeconfig file, a bash script in place of a tool (kind that
fails after printing, a kubectl that notes its KUBECONFIG, a Pulumi or a Python), and
collect.log's rows to read back."""

from __future__ import annotations

from pathlib import Path

from .collect_in_process import InProcess

KEY_DATA = "S3CRET-KEY-DATA-0123"
KUBECONFIG = (
    "apiVersion: v1\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n"
    f"users:\n- name: kind-kind\n  user:\n    client-key-data: {KEY_DATA}\n"
)
JOB = "platform-checks-nccl-all-reduce-3f9a2c1"


def given_kubeconfig(tmp_path: Path, text: str | bytes = KUBECONFIG) -> Path:
    """A kubeconfig for --kubeconfig (bytes: in no particular encoding)."""
    config = tmp_path / "kubeconfig"
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text, encoding="utf-8")
    return config


def a_script(folder: Path, name: str, body: str) -> Path:
    """An executable bash script `folder/name` running `body`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return path


def log_rows(stands: InProcess) -> list[str]:
    """collect.log's rows (status, source, file, detail: tab-separated)."""
    return (stands.rig.bundle / "collect.log").read_text(encoding="utf-8").splitlines()
