"""The two-GPU inputs (issue #32): `expect-gpus` asks for the GPU checks, as
`gpu-ci:cluster.expectGpus`; a bad one, or time-slicing left on, stops at configure in the
inputs' words; the NCCL check's bandwidth line becomes an output and a summary row."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from components.platform.checks.nccl_all_reduce import BANDWIDTH_PREFIX

from .action_sandbox import SCRIPTS, ActionSandbox

NO_SHARING = "gpu-time-slicing:enabled=false\ngpu-operator:devicePlugin.config.name="


def configured(runner: ActionSandbox, **inputs: str) -> dict[str, Any]:
    for step in ("prepare", "configure"):
        run = runner.run(step, **inputs)
        assert run.returncode == 0, f"{step}: {run.stderr}"
    config: dict[str, Any] = yaml.safe_load(runner.stack_file().read_text())["config"]
    return config


def test_expect_gpus_plans_the_gpu_checks(runner: ActionSandbox) -> None:
    config = configured(runner, gpu_count="2", expect_gpus="2", platform_set=NO_SHARING)
    assert config["gpu-ci:cluster"]["expectGpus"] == 2
    names = {r["name"] for r in runner.plan()["resources"]}
    assert {"platform-checks-gpu-count", "platform-checks-nccl-all-reduce"} <= names


def test_a_bad_expect_gpus_is_named(runner: ActionSandbox) -> None:
    assert runner.run("prepare").returncode == 0
    run = runner.run("configure", expect_gpus="two")
    assert run.returncode == 1
    assert (
        "::error title=gpu-ci input expect-gpus::input expect-gpus 'two': must be a positive "
        "number" in run.stdout
    )


def test_time_slicing_with_two_expected_gpus_is_refused_in_the_inputs_words(
    runner: ActionSandbox,
) -> None:
    assert runner.run("prepare").returncode == 0
    run = runner.run("configure", gpu_count="2", expect_gpus="2")
    assert run.returncode == 1
    (annotation,) = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert annotation.startswith(
        "::error title=gpu-ci input expect-gpus::input expect-gpus '2': expects 2 GPUs for "
        "multi-GPU jobs, but the recipe's gpu-operator shares each GPU 2 ways"
    )
    assert "`gpu-time-slicing:enabled=false`" in annotation


def test_the_bandwidth_line_becomes_an_output_and_a_summary_row(tmp_path: Path) -> None:
    output, summary = tmp_path / "output", tmp_path / "summary"
    log = (
        f"gpu-ci check nccl-all-reduce: torchrun\n{BANDWIDTH_PREFIX}9.87 GB/s, algbw 9.87 GB/s (x)"
    )
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "outputs.py"), "bandwidth"],
        input=log,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "nccl-bandwidth" in output.read_text() and "9.87 GB/s\n" in output.read_text()
    assert summary.read_text() == "| NCCL all-reduce | busbw 9.87 GB/s, algbw 9.87 GB/s (x) |\n\n"
    missing = subprocess.run(
        [sys.executable, str(SCRIPTS / "outputs.py"), "bandwidth"],
        input="gpu-ci check nccl-all-reduce: FAILED (timeout)\n",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode != 0 and "no bandwidth line" in missing.stderr + missing.stdout
