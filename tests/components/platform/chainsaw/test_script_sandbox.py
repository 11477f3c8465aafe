"""The check Job's shell (`chainsaw/script.py`) in a sandbox, with a stub in place of Chainsaw
that records its arguments, prints a log, writes a report and exits as told: the pod's log is
Chainsaw's output and then exactly one verdict line, and the verdict reads the report, not the
exit code alone. `test_script.py` runs the same script on the pinned binary."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from components.platform.chainsaw.script import chainsaw_script, report_args

LOG = "| 10:00:00 | t | only | ASSERT | RUN | v1/Namespace @ gpu-ci-checks\n"
STUB = """#!/bin/sh
printf '%s\\n' "$@" >"$STUB_DIR/args"
/bin/cat "$STUB_DIR/log"
if [ -n "$STUB_LATE" ]; then  # end only once the watchdog sleeps
  while [ ! -s "$STUB_DIR/watchdog" ]; do /bin/sleep 0.01; done
fi
if [ -f "$STUB_DIR/report.json" ]; then
  cp "$STUB_DIR/report.json" "$STUB_WORK/chainsaw-report.json"
fi
exit "$STUB_RC"
"""
SLEEP = """#!/bin/sh
echo "$PPID" >"$STUB_DIR/watchdog"
while [ ! -e "$STUB_DIR/wake" ]; do /bin/sleep 0.01; done
"""
"""The watchdog's `sleep`: records its shell, then sleeps until told to wake."""
CAT = """#!/bin/sh
: >"$STUB_DIR/wake"
shell="$(/bin/cat "$STUB_DIR/watchdog")"
while [ ! -e "$STUB_WORK/chainsaw.expired" ]; do
  state="$(/bin/sed 's/^.*) //' "/proc/$shell/stat" 2>/dev/null | /usr/bin/cut -c1)"
  if [ -z "$state" ] || [ "$state" = Z ]; then break; fi
  /bin/sleep 0.01
done
exec /bin/cat "$@"
"""
"""The script's `cat` of the log, once Chainsaw ended: wakes the watchdog and lets it act
(until its shell has ended, or has marked the run expired) before the verdict is made."""


def _report(status: str, steps: dict[str, str]) -> dict[str, Any]:
    """Chainsaw's JSON report (v0.2.15 `pkg/report/json.go`) of one Test `t`."""
    return {
        "name": "chainsaw-report",
        "tests": [
            {
                "basePath": "/checks",
                "name": "t",
                "status": status,
                "steps": [{"name": n, "status": s} for n, s in steps.items()],
            }
        ],
    }


def _stub(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def _run(
    tmp_path: Path, rc: int, report: dict[str, Any] | None, *, late: bool = False
) -> tuple[int, str]:
    """The script on the stub; `late`: its watchdog wakes just after Chainsaw ended."""
    stub_dir, work = tmp_path / "stub", tmp_path / "work"
    stub_dir.mkdir()
    work.mkdir()
    binary = stub_dir / "chainsaw"
    _stub(binary, STUB)
    if late:
        _stub(stub_dir / "sleep", SLEEP)
        _stub(stub_dir / "cat", CAT)
    (stub_dir / "log").write_text(LOG, encoding="utf-8")
    if report is not None:
        # json.MarshalIndent with two spaces, as Chainsaw writes it
        (stub_dir / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    args = ["test", "--test-dir", "/checks", *report_args(str(work))]
    script = chainsaw_script("c", "t", args, 60, binary=str(binary), work_dir=str(work))
    done = subprocess.run(
        ["/bin/sh", "-c", script],
        env={
            "PATH": f"{stub_dir}:/usr/bin:/bin" if late else "/usr/bin:/bin",
            "STUB_DIR": str(stub_dir),
            "STUB_LATE": "1" if late else "",
            "STUB_WORK": str(work),
            "STUB_RC": str(rc),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, as the pod's log
        text=True,
        timeout=60,
        check=False,
    )
    assert (stub_dir / "args").read_text(encoding="utf-8").splitlines() == args  # as given
    return done.returncode, done.stdout


def test_a_passed_run_logs_chainsaws_output_then_only_the_verdict(tmp_path: Path) -> None:
    code, output = _run(tmp_path, 0, _report("passed", {"only": "passed"}))
    assert (code, output) == (0, LOG + "gpu-ci check c: passed (Test t)\n")


def test_no_report_fails_naming_chainsaws_exit_code(tmp_path: Path) -> None:
    code, output = _run(tmp_path, 3, None)
    assert (code, output) == (
        1,
        LOG + "gpu-ci check c: FAILED (Chainsaw exited 3 without a report: it did not run the "
        "Test, see its output above)\n",
    )


def test_a_failed_test_fails_even_when_chainsaw_exits_0(tmp_path: Path) -> None:
    code, output = _run(tmp_path, 0, _report("failed", {"first": "passed", "second": "failed"}))
    assert (code, output) == (
        1,
        LOG + "gpu-ci check c: FAILED (Test t, step second: see Chainsaw's error above; exit 0)\n",
    )


def test_chainsaw_ending_stops_the_watchdog_before_the_verdict(tmp_path: Path) -> None:
    # The watchdog wakes after Chainsaw ended but before the script reads its marker: a run
    # that ended in time must not be reported as past its deadline.
    code, output = _run(tmp_path, 0, _report("passed", {"only": "passed"}), late=True)
    assert (code, output) == (0, LOG + "gpu-ci check c: passed (Test t)\n")
    assert not (tmp_path / "work" / "chainsaw.expired").exists()
