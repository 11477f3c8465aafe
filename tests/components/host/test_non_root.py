"""The steps as an unprivileged user: what needs root goes through `sudo -n` (lib.sh's
`as_root`), and a sudo that asks for a password fails the step instead of hanging.

Run as root (CI's container), the sandbox drops to `nobody` with setpriv; run as anyone
else, the steps already run unprivileged.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from components.host.params.bootstrap import InotifyParams
from components.host.params.step import Step

from .sandbox import Sandbox


@pytest.fixture
def unprivileged() -> Iterator[Sandbox]:
    # Not under pytest's tmp_path: its folders are root's alone (0700), which `nobody`
    # could not enter.
    base = Path(tempfile.mkdtemp(prefix="gpu-ci-sandbox-"))
    os.chmod(base, 0o755)
    try:
        yield Sandbox(base / "s", run_as="nobody")
    finally:
        shutil.rmtree(base)


def inotify(sandbox: Sandbox) -> InotifyParams:
    sandbox.put("sysctl-fs.inotify.max_user_watches", "65536")
    sandbox.put("sysctl-fs.inotify.max_user_instances", "128")
    return sandbox.params(InotifyParams, max_user_instances=512)


def test_a_step_as_a_user_runs_what_needs_root_through_sudo_n(unprivileged: Sandbox) -> None:
    run = unprivileged.run(Step.INOTIFY, inotify(unprivileged))
    assert run.returncode == 0, run.stderr
    # The sudo stub runs the rest of its line, so each root command shows twice: sudo's
    # line, then the command's own.
    writes = [i for i, c in enumerate(run.calls) if c.startswith("sysctl -q -w ")]
    assert len(writes) == 2, run.calls
    assert all(run.calls[i - 1] == f"sudo -n {run.calls[i]}" for i in writes), run.calls
    assert any(c.startswith("sudo -n install ") for c in run.calls), run.calls
    assert "sudo -n sysctl -q -w fs.inotify.max_user_watches=524288" in run.calls
    assert run.result().changed is True


def test_as_root_the_same_step_calls_no_sudo(sandbox: Sandbox) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: the tests run unprivileged here")
    run = sandbox.run(Step.INOTIFY, inotify(sandbox))
    assert run.returncode == 0, run.stderr
    assert not [c for c in run.calls if c.startswith("sudo")], run.calls


def test_a_sudo_that_wants_a_password_fails_the_step(unprivileged: Sandbox) -> None:
    # `sudo -n` exits 1 where it would prompt; the stub does when told to.
    stub = unprivileged.bin / "sudo"
    stub.unlink()
    stub.write_text('#!/bin/bash\nprintf "sudo %s\\n" "$*" >>"$SANDBOX/calls.log"\nexit 1\n')
    stub.chmod(0o755)
    run = unprivileged.run(Step.INOTIFY, inotify(unprivileged))
    assert run.returncode != 0
    assert "gpu-ci step inotify:" in run.stderr
    assert any(c.startswith("sudo -n ") for c in run.calls), run.calls
