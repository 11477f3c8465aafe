"""The shell around `chainsaw test` in a check Job: exactly the expected Test ran and passed,
and a run that outlives its worst case still names the step it was in.

Chainsaw alone would mislead in two ways (kyverno/chainsaw v0.2.15):
- with no Test found it prints "Done." and exits 0 (`pkg/runner/runner.go` returns at once
  for zero tests; `pkg/commands/test/command.go` fails only on `tc.Failed() > 0`), so a
  renamed file or a changed mount would pass. The script reads Chainsaw's JSON report
  (`--report-format JSON`, written by `pkg/report/json.go` with `json.MarshalIndent` and a
  two-space indent, so each Test's `name` and `status` are lines indented six spaces) and
  fails unless it holds exactly the one expected Test, by name, passed;
- `--quiet` buffers each step's lines until an error is logged (`pkg/runner/sink.go`), so
  a pod killed mid-step printed nothing. The check runs without it: each operation's start
  is logged as it happens (`| HH:MM:SS | test | step | ASSERT | RUN | ...`; `t.Log` streams
  because `pkg/runner/flags/flags.go` sets `test.v`), and a watchdog stops Chainsaw once
  the Test's worst case (`worst_case.py`) and half the margin have passed, before
  the Job's deadline, naming the step of the last line logged. The log goes to a file and
  is printed when Chainsaw ends, so the verdict is the last line, the one
  `FallbackToLogsOnError` keeps for pulumi's error.

The image (`CHECK_PINS.chainsaw_image`) is ko-built on `cgr.dev/chainguard/kubectl:
latest-dev` (kyverno/chainsaw v0.2.15 `.ko.yaml`, `.goreleaser.yaml` `kos.base_image`), a
Chainguard `-dev` variant, which has a shell (Chainguard's migration tips: "-dev variants
... include a shell and package manager"); ko puts the binary at `/ko-app/chainsaw`
(ko-build/ko `pkg/build/gobuild.go`: `/ko-app/` plus the import path's base name). The
script uses only POSIX `sh`, `sleep`, `kill`, `cat`, `sed`, `grep`, `head`, `tail` and `tr`.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

CHAINSAW_BINARY = "/ko-app/chainsaw"
WORK_DIR = "/tmp"
"""Where the report and the log go (the check pod's writable emptyDir)."""
REPORT_NAME = "chainsaw-report"
_STEP = r"s/^.*| [0-9][0-9]:[0-9][0-9]:[0-9][0-9] | [^|]* | \([^|]*[^ |]\) *| .*$/\1/p"
"""The step column of Chainsaw's log lines (`sink.go`: `| time | test | step | ...`)."""


def report_args(work_dir: str = WORK_DIR) -> list[str]:
    """The flags that make Chainsaw write the JSON report the script reads."""
    return ["--report-format", "JSON", "--report-path", work_dir, "--report-name", REPORT_NAME]


def chainsaw_script(
    check: str,
    test_name: str,
    args: Sequence[str],
    watchdog_s: int,
    binary: str = CHAINSAW_BINARY,
    work_dir: str = WORK_DIR,
) -> str:
    """Run `binary args` (a `chainsaw test`) for check `check`, expecting Test `test_name`
    alone; stop it after `watchdog_s` seconds. Exits 0 only if that Test ran and passed."""
    say = f"gpu-ci check {check}"
    command = " ".join(shlex.quote(a) for a in [binary, *args])
    report = f"{work_dir}/{REPORT_NAME}.json"
    log, expired = f"{work_dir}/chainsaw.log", f"{work_dir}/chainsaw.expired"
    return "\n".join(
        [
            f"want={shlex.quote(test_name)}",
            f"{command} >{log} 2>&1 &",
            "pid=$!",
            f'( sleep {watchdog_s} && : >{expired} && kill -TERM "$pid" ) >/dev/null 2>&1 &',
            "watchdog=$!",
            'wait "$pid"',
            "rc=$?",
            'kill "$watchdog" 2>/dev/null',
            f"cat {log}",
            f"step=\"$(sed -n '{_STEP}' {log} | tail -n 1)\"",
            f"if [ -e {expired} ]; then",
            f'  echo "{say}: FAILED (deadline: Chainsaw still ran after {watchdog_s}s, past the '
            "Test's worst case; it was in step ${step:-none, before the first step})\"",
            "  exit 1",
            "fi",
            f"if [ ! -s {report} ]; then",
            f'  echo "{say}: FAILED (Chainsaw exited $rc without a report: it did not run the '
            'Test, see its output above)"',
            "  exit 1",
            "fi",
            f'names="$(sed -n \'s/^      "name": "\\(.*\\)",$/\\1/p\' {report})"',
            "count=\"$(printf '%s' \"$names\" | grep -c '')\"",
            'if [ "$count" -ne 1 ] || [ "$names" != "$want" ]; then',
            f'  echo "{say}: FAILED (Chainsaw ran $count Test(s) [$(printf \'%s\' "$names" | '
            "tr '\\n' ' ')], expected exactly $want: the mounted Test was not found or is not "
            'the one planned)"',
            "  exit 1",
            "fi",
            f'failed="$(sed -n \'/^          "name": /{{h;n;/"status": "failed"/{{x;p;}};}}\' '
            f'{report} | sed \'s/^ *"name": "\\(.*\\)",$/\\1/\' | head -n 1)"',
            f'if [ "$rc" -ne 0 ] || ! grep -q \'^      "status": "passed",$\' {report}; then',
            f"  echo \"{say}: FAILED (Test $want, step ${{failed:-$step}}: see Chainsaw's "
            'error above; exit $rc)"',
            "  exit 1",
            "fi",
            f'echo "{say}: passed (Test $want)"',
            "",
        ]
    )
