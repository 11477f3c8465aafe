"""Step inotify: persisted in sysctl.d and applied only where the live value differs."""

from __future__ import annotations

from components.host.params.bootstrap import InotifyParams
from components.host.params.step import Step

from .sandbox import Sandbox


def defaults(sandbox: Sandbox) -> None:
    sandbox.put("sysctl-fs.inotify.max_user_watches", "65536")
    sandbox.put("sysctl-fs.inotify.max_user_instances", "128")


def test_happy_path_persists_and_applies(sandbox: Sandbox) -> None:
    defaults(sandbox)
    run = sandbox.run(Step.INOTIFY, sandbox.params(InotifyParams, max_user_instances=512))
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "sysctl -n fs.inotify.max_user_watches",
        "sysctl -q -w fs.inotify.max_user_watches=524288",
        "sysctl -n fs.inotify.max_user_instances",
        "sysctl -q -w fs.inotify.max_user_instances=512",
    ]
    conf = (sandbox.root / "etc/sysctl.d/99-gpu-ci-inotify.conf").read_text()
    assert "fs.inotify.max_user_watches = 524288\n" in conf
    assert "fs.inotify.max_user_instances = 512\n" in conf
    assert run.result().changed is True


def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    defaults(sandbox)
    params = sandbox.params(InotifyParams)
    sandbox.run(Step.INOTIFY, params)
    run = sandbox.run(Step.INOTIFY, params)
    assert run.returncode == 0, run.stderr
    assert all(c.startswith("sysctl -n ") for c in run.calls)
    assert run.result().changed is False


def test_lost_live_value_is_reapplied(sandbox: Sandbox) -> None:
    defaults(sandbox)
    params = sandbox.params(InotifyParams)
    sandbox.run(Step.INOTIFY, params)
    sandbox.put("sysctl-fs.inotify.max_user_instances", "128")
    run = sandbox.run(Step.INOTIFY, params)
    assert "sysctl -q -w fs.inotify.max_user_instances=8192" in run.calls
    assert run.result().changed is True
