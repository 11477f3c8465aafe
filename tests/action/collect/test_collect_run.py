"""collect_run: each source bounded in time, never fatal, and one Record of what became of it.

The commands are real ones (sh, cat) run by the Runner in this process, under the dotted
name mutmut gives the module (collect_modules.py).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from .collect_modules import module

run_mod = module("collect_run")
Record = run_mod.Record


def runner(tmp_path: Path, **kw: Any) -> Any:
    values: dict[str, Any] = {"source_timeout": 10.0, "budget": 120.0, "sudo": False, **kw}
    return run_mod.Runner(tmp_path / "staging", **values)


def test_a_source_that_succeeds_is_shipped_or_kept_in_scratch(tmp_path: Path) -> None:
    r = runner(tmp_path, env={"SAID": "from the runner"})
    assert sorted(p.name for p in (tmp_path / "staging").iterdir()) == ["scratch", "ship"]
    shipped = r.run("say", ["sh", "-c", 'echo "$SAID"; read -r x || echo "no stdin"'], "a/b/c.txt")
    assert shipped == run_mod.Done(True, tmp_path / "staging" / "ship" / "a" / "b" / "c.txt")
    assert shipped.text() == "from the runner\nno stdin\n"
    kept = r.run("json", ["sh", "-c", "echo '{\"a\": [1]}'"])
    assert kept.stdout == tmp_path / "staging" / "scratch" / "2.out"
    assert run_mod.parsed(kept) == {"a": [1]}
    silent = r.run("quiet", ["true"], record=False)
    assert silent.ok and silent.stdout == tmp_path / "staging" / "scratch" / "3.out"
    assert r.records == [Record("say", "ok", "a/b/c.txt"), Record("json", "ok", "")]
    assert r.ship == tmp_path / "staging" / "ship"


def test_a_failing_source_names_its_exit_and_last_line_on_stderr(tmp_path: Path) -> None:
    r = runner(tmp_path)
    script = "echo partial; printf 'first\\n  last words  \\n\\n  \\n' >&2; exit 3"
    done = r.run("fails", ["sh", "-c", script], "f.txt")
    assert done == run_mod.Done(False, tmp_path / "staging" / "ship" / "f.txt")
    assert done.text() == "partial\n" and run_mod.parsed(done) is None
    r.run("quietly", ["sh", "-c", "exit 1"])
    r.run("long", ["sh", "-c", "printf '%0400d' 0 >&2; exit 2"], record=True)
    r.run("unrecorded", ["false"], record=False)
    assert r.records == [
        Record("fails", "failed", "f.txt", "exit 3: last words"),
        Record("quietly", "failed", "", "exit 1: (nothing on stderr)"),
        Record("long", "failed", "", "exit 2: " + "0" * 300),
    ]


def test_a_missing_command_is_a_failed_source(tmp_path: Path) -> None:
    r = runner(tmp_path)
    done = r.run("nothing", ["/no/such/tool", "x"], "n.txt")
    assert done == run_mod.Done(False, None)
    assert done.text() == ""
    assert r.records == [
        Record("nothing", "failed", "n.txt", "/no/such/tool: No such file or directory")
    ]


def test_a_hanging_source_is_ended_with_its_children(tmp_path: Path) -> None:
    r = runner(tmp_path, source_timeout=0.2)
    pidfile = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! >{pidfile}; echo started; wait"
    done = r.run("hangs", ["sh", "-c", script], "h.txt", factor=2)
    assert done == run_mod.Done(False, tmp_path / "staging" / "ship" / "h.txt")
    assert done.text() == "started\n"
    assert r.records == [Record("hangs", "timed out", "h.txt", "after 0 s")]
    assert gone(int(pidfile.read_text()))  # the whole group went, the child too


def gone(pid: int) -> bool:
    """Whether `pid` ends within a few seconds (a signal sent is not yet an exit)."""
    for _ in range(100):
        if not running(pid):
            return True
        time.sleep(0.05)
    return False


def running(pid: int) -> bool:
    """Whether `pid` is alive (a zombie no one reaped yet is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The signals sent to sources' process groups, each sent for real too."""
    signals: list[int] = []
    real = os.killpg

    def killpg(pid: int, sig: int) -> None:
        signals.append(sig)
        real(pid, sig)

    monkeypatch.setattr(os, "killpg", killpg)
    return signals


def test_a_source_that_ignores_sigterm_is_killed_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: list[int]
) -> None:
    monkeypatch.setattr(run_mod, "GRACE_S", 0.3)
    r = runner(tmp_path, source_timeout=1)
    ready = tmp_path / "ready"
    script = f"trap '' TERM; touch {ready}; while :; do sleep 0.05; done"
    r.run("stubborn", ["sh", "-c", script], factor=1.5)
    assert ready.exists()
    assert sent == [signal.SIGTERM, signal.SIGKILL]
    assert r.records == [Record("stubborn", "timed out", "", "after 2 s")]


def test_a_source_that_ends_on_sigterm_gets_no_sigkill(tmp_path: Path, sent: list[int]) -> None:
    r = runner(tmp_path, source_timeout=0.3)
    r.run("sleeps", ["sleep", "60"])  # bounded by one source timeout: 0.3 s
    assert sent == [signal.SIGTERM]
    assert r.records == [Record("sleeps", "timed out", "", "after 0 s")]


def test_the_time_budget_bounds_a_source_and_then_skips_the_rest(tmp_path: Path) -> None:
    r = runner(tmp_path, source_timeout=60, budget=0.5)
    r.run("long", ["sleep", "60"], "l.txt")
    assert r.records[0].status == "timed out"
    assert r.records[0].detail in ("after 0 s", "after 1 s")  # what was left of 0.5 s
    done = r.run("next", ["true"], "n.txt")
    assert done == run_mod.Done(False, None)
    r.run("quiet", ["true"], record=False)
    assert r.records[1:] == [
        Record("next", "skipped", "n.txt", "the collect's time budget was spent")
    ]
    assert not (tmp_path / "staging" / "ship" / "n.txt").exists()


def test_root_sources_go_through_sudo_only_when_asked_and_not_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert runner(tmp_path, sudo=True).as_root(["cat", "f"]) == ["sudo", "-n", "cat", "f"]
    assert runner(tmp_path, sudo=False).as_root(["cat", "f"]) == ["cat", "f"]
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert runner(tmp_path, sudo=True).as_root(["cat", "f"]) == ["cat", "f"]


def test_root_true_runs_the_command_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "sudo").write_text('#!/bin/sh\necho "sudo $*"\n')
    (bin_ / "sudo").chmod(0o755)
    r = runner(tmp_path, sudo=True, env={"PATH": f"{bin_}:{os.environ['PATH']}"})
    assert r.run("as root", ["id", "-u"], root=True).text() == "sudo -n id -u\n"
    assert r.run("as me", ["echo", "me"]).text() == "me\n"


def test_copy_ships_a_host_file_and_records_what_became_of_it(tmp_path: Path) -> None:
    r = runner(tmp_path)
    source = tmp_path / "daemon.json"
    source.write_text('{"default-runtime": "nvidia"}\n')
    r.copy("/etc/docker/daemon.json", source, "host/etc/docker/daemon.json")
    r.copy("/etc/missing", tmp_path / "missing", "host/etc/missing")
    r.copy("/etc/a-folder", tmp_path, "host/etc/a-folder")
    shipped = tmp_path / "staging" / "ship" / "host" / "etc" / "docker" / "daemon.json"
    assert shipped.read_text() == '{"default-runtime": "nvidia"}\n'
    assert r.records == [
        Record("/etc/docker/daemon.json", "ok", "host/etc/docker/daemon.json"),
        Record("/etc/missing", "absent", "host/etc/missing", f"no {tmp_path / 'missing'}"),
        Record("/etc/a-folder", "failed", "host/etc/a-folder", f"{tmp_path}: Is a directory"),
    ]
    r.note("by hand", "skipped")
    assert r.records[-1] == Record("by hand", "skipped", "", "")


def test_copy_reads_an_unreadable_file_through_sudo_cat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "config.toml"
    source.write_text("secret-ish = true\n")
    real_open = Path.open

    def refuse(self: Path, *args: Any, **kw: Any) -> Any:
        if self == source:
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kw)

    monkeypatch.setattr(Path, "open", refuse)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "sudo").write_text(
        f'#!/bin/sh\necho "sudo $*" >>{tmp_path / "sudo.log"}\n[ "$1" = -n ] && shift\nexec "$@"\n'
    )
    (bin_ / "sudo").chmod(0o755)
    r = runner(tmp_path, sudo=True, env={"PATH": f"{bin_}:{os.environ['PATH']}"})
    r.copy("/etc/nvidia-container-runtime/config.toml", source, "host/config.toml")
    assert (tmp_path / "staging" / "ship" / "host" / "config.toml").read_bytes() == (
        b"secret-ish = true\n"
    )
    assert r.records == [
        Record("/etc/nvidia-container-runtime/config.toml", "ok", "host/config.toml")
    ]
    assert (tmp_path / "sudo.log").read_text() == f"sudo -n cat -- {source}\n"


def test_only_so_many_bytes_of_an_answer_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_mod, "MAX_PARSED", 8)
    out = tmp_path / "out"
    out.write_bytes(b'{"a": 1}  and more \xff')
    assert run_mod.Done(True, out).text() == '{"a": 1}'
    assert run_mod.parsed(run_mod.Done(True, out)) == {"a": 1}
    source = tmp_path / "big"
    source.write_bytes(b"0123456789abc")
    r = runner(tmp_path)
    r.copy("big", source, "big.txt")
    assert (tmp_path / "staging" / "ship" / "big.txt").read_bytes() == b"01234567"


def test_text_replaces_what_is_not_utf8(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_bytes(b"caf\xe9\n")
    assert run_mod.Done(True, out).text() == "caf\ufffd\n"
    assert run_mod.Done(True, tmp_path / "gone").text() == ""


def test_a_json_answer_that_is_not_json_or_too_deep_is_none(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("[" * 100_000 + "]" * 100_000)
    assert run_mod.parsed(run_mod.Done(True, out)) is None
    out.write_text("not json")
    assert run_mod.parsed(run_mod.Done(True, out)) is None
    out.write_text("[1]")
    assert run_mod.parsed(run_mod.Done(False, out)) is None


def test_the_actions_own_json_files_are_read_when_there_and_sound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "plan.json"
    assert run_mod.parsed_file(path) is None
    path.write_text('{"resources": []}')
    assert run_mod.parsed_file(path) == {"resources": []}
    path.write_text("{")
    assert run_mod.parsed_file(path) is None
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert run_mod.parsed_file(path) is None
    path.write_bytes(b'["\xff"]')
    assert run_mod.parsed_file(path) is None  # not UTF-8
    assert run_mod.parsed_file(tmp_path) is None  # a folder
    path.write_text('{"a": 12}')
    monkeypatch.setattr(run_mod, "MAX_PARSED", 9)
    assert run_mod.parsed_file(path) == {"a": 12}
    monkeypatch.setattr(run_mod, "MAX_PARSED", 8)
    assert run_mod.parsed_file(path) is None


def test_a_source_never_reads_the_collectors_stdin(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.write(write, b"what the collector was given\n")
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)
    try:
        done = runner(tmp_path).run("reads", ["sh", "-c", 'read -r x; echo "got [$x]"'])
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read)
    assert done.text() == "got []\n"


def test_only_the_last_4_kib_of_stderr_are_read(tmp_path: Path) -> None:
    r = runner(tmp_path)
    spaces = " " * 4095
    r.run("long", ["sh", "-c", f"printf 'last words\\n{spaces}' >&2; exit 1"])
    r.run("bad", ["sh", "-c", "printf 'caf\\351 failed\\n' >&2; exit 1"])
    assert r.records == [
        Record("long", "failed", "", "exit 1: (nothing on stderr)"),
        Record("bad", "failed", "", "exit 1: caf\ufffd failed"),
    ]


def test_a_budget_spent_to_the_last_instant_skips_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    r = runner(tmp_path, budget=0)
    assert r.run("late", ["true"]) == run_mod.Done(False, None)
    assert r.records == [Record("late", "skipped", "", "the collect's time budget was spent")]
