"""lib.sh's shell options, by what they do: every rendered step sources it first, so an
unset variable, a failed command inside a pipeline, or a failure inside a function stops
the step instead of running on (a grep for the `set` line would not notice a lost option)."""

from __future__ import annotations

import pytest

from components.host.render import library_source

from .sandbox import Sandbox

PROBES = {
    "unset variable (set -u)": 'echo "$GPU_CI_NOT_SET"',
    "failure inside a pipeline (set -o pipefail)": "false | cat",
    "failed command (set -e, or the ERR trap)": "false",
    "failure inside a function (ERR trap, set -E)": "probe() { false; echo inside; }; probe",
}


@pytest.mark.parametrize("body", PROBES.values(), ids=list(PROBES))
def test_lib_stops_the_step(sandbox: Sandbox, body: str) -> None:
    script = sandbox.base / "probe.sh"
    script.write_text(
        "readonly GPU_CI_STEP=probe\n" + library_source() + f"\n{body}\necho reached-the-end\n"
    )
    run = sandbox.run_file(script)
    assert run.returncode != 0
    assert "reached-the-end" not in run.stdout
    assert "inside" not in run.stdout


def test_the_probe_itself_runs_to_the_end_without_the_failure(sandbox: Sandbox) -> None:
    script = sandbox.base / "probe.sh"
    script.write_text(
        "readonly GPU_CI_STEP=probe\n" + library_source() + "\necho reached-the-end\n"
    )
    run = sandbox.run_file(script)
    assert run.returncode == 0, run.stderr
    assert "reached-the-end" in run.stdout
